import http from 'node:http';
import readline from 'node:readline';
import type { Fleet } from './fleet.ts';

/** Actions on one device, by name: the same for stdin and the HTTP control port. */
const ACTIONS: Record<string, (fleet: Fleet, sn: string, args: string[]) => Promise<unknown> | unknown> = {
  'power-on': (f, sn) => f.powerOn(sn),
  kill: (f, sn) => f.get(sn).kill(),
  'paper-out': (f, sn) => f.get(sn).runOutOfPaper(),
  'paper-ok': (f, sn) => f.get(sn).refillPaper(),
  'cover-open': (f, sn) => f.get(sn).setFault('cover-open'),
  'cover-close': (f, sn) => f.get(sn).clearFault('cover-open'),
  overheat: (f, sn) => f.get(sn).setFault('overheat'),
  'cool-down': (f, sn) => f.get(sn).clearFault('overheat'),
  silence: (f, sn) => void (f.get(sn).silent = true),
  resume: (f, sn) => void (f.get(sn).silent = false),
  /** `move <sn> <lat> <lng>` (HTTP: `POST /devices/{sn}/move?lat=…&lng=…`): the device goes there and reports it. */
  move: (f, sn, [lat, lng]) => {
    if (lat === undefined || lng === undefined || lat.trim() === '' || lng.trim() === '')
      throw new Error('move needs <lat> <lng>');
    return f.get(sn).moveTo(Number(lat), Number(lng));
  },
};

const HELP = `commands: ${Object.keys(ACTIONS)
  .map((a) => `${a} <sn>`)
  .join(', ')}, list, stats, help`;

function describe(fleet: Fleet) {
  return fleet.devices.map((d) => ({
    sn: d.sn,
    phase: d.phase,
    powered: d.powered,
    paper: d.paper,
    battery: d.battery,
    signal: d.signal,
    executed: d.executed.length,
    data: {
      profile: d.sim.profile,
      usedMb: d.usedMb,
      planMb: d.sim.plan.planMb,
      noData: d.noData,
    },
  }));
}

/** Reads commands like `power-on SIM1-00003` from stdin. */
export function stdinControl(fleet: Fleet, print: (line: string) => void): readline.Interface {
  const rl = readline.createInterface({ input: process.stdin });
  const handle = async (line: string): Promise<void> => {
    const [cmd, sn, ...args] = line.trim().split(/\s+/);
    if (!cmd) return;
    try {
      if (cmd === 'help') print(HELP);
      else if (cmd === 'stats') print(JSON.stringify(fleet.stats()));
      else if (cmd === 'list') for (const d of describe(fleet)) print(JSON.stringify(d));
      else if (ACTIONS[cmd] && sn) {
        await ACTIONS[cmd](fleet, sn, args);
        print(`${cmd} ${sn}: done`);
      } else print(HELP);
    } catch (e) {
      print(`${cmd} ${sn ?? ''}: ${(e as Error).message}`);
    }
  };
  rl.on('line', (line) => void handle(line));
  return rl;
}

/**
 * A small local HTTP control: `GET /devices`, `GET /stats`, `POST /devices/{sn}/{action}` with the actions
 * of the stdin control. Listens on loopback only.
 */
export function httpControl(fleet: Fleet, port: number): Promise<http.Server> {
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const url = new URL(req.url ?? '/', 'http://localhost');
    try {
      if (req.method === 'GET' && url.pathname === '/devices') return send(200, describe(fleet));
      if (req.method === 'GET' && url.pathname === '/stats') return send(200, fleet.stats());
      const m = /^\/devices\/([^/]+)\/([a-z-]+)$/.exec(url.pathname);
      if (req.method === 'POST' && m && ACTIONS[m[2]]) {
        const args = m[2] === 'move' ? [url.searchParams.get('lat') ?? '', url.searchParams.get('lng') ?? ''] : [];
        await ACTIONS[m[2]](fleet, decodeURIComponent(m[1]), args);
        return send(200, { ok: true });
      }
      send(404, { error: HELP });
    } catch (e) {
      send(400, { error: (e as Error).message });
    }
  };
  const server = http.createServer((req, res) => void handle(req, res));
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}
