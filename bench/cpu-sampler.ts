/**
 * Where the machine's CPU went while something was slow: a worker thread reads every process's CPU time
 * (`/proc/<pid>/stat`, all its threads) and its main thread's time spent waiting for a CPU
 * (`/proc/<pid>/schedstat`, the run queue delay) every `everyMs`, so a benchmark can ask, for any window of
 * wall-clock time it measured, which processes ran and which waited. It reads `/proc` only (Linux); elsewhere it
 * records nothing and says so.
 */
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';

/** One process's counters at one moment: CPU ticks of all threads (1/100 s), main thread's CPU and wait (ns). */
type Counters = [ticks: number, cpuNs: number, waitNs: number];
type Sample = { t: number; procs: Record<number, Counters> };

const WORKER = `
const fs = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
const samples = [];
let stop = false;
parentPort.on('message', () => { stop = true; });
function read() {
  const procs = {};
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync('/proc/' + name + '/stat', 'utf8');
      const f = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      const sched = fs.readFileSync('/proc/' + name + '/schedstat', 'utf8').split(' ');
      procs[name] = [Number(f[11]) + Number(f[12]), Number(sched[0]), Number(sched[1])];
    } catch {}
  }
  samples.push({ t: Date.now(), procs });
}
(function loop() {
  if (stop) { parentPort.postMessage(samples); return; }
  read();
  setTimeout(loop, workerData.everyMs);
})();
`;

export type CpuWindow = { name: string; cpuMs: number; waitMs: number }[];

export class CpuSampler {
  private readonly worker: Worker | undefined;
  private samples: Sample[] = [];
  private readonly names = new Map<number, string>();

  constructor(
    /** A name for each process the benchmark knows (the server, the fleet); others are named by their command line. */
    private readonly known: Map<number, string>,
    everyMs = 20,
  ) {
    if (!fs.existsSync('/proc/self/schedstat')) return;
    this.worker = new Worker(WORKER, { eval: true, workerData: { everyMs } });
  }

  /** Stops sampling and keeps what was read. */
  async stop(): Promise<void> {
    if (!this.worker) return;
    const done = new Promise<Sample[]>((resolve) => this.worker!.once('message', resolve));
    this.worker.postMessage('stop');
    this.samples = await done;
    await this.worker.terminate();
  }

  private nameOf(pid: number): string {
    const known = this.known.get(pid);
    if (known) return known;
    let name = this.names.get(pid);
    if (name === undefined) {
      try {
        const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
        // PostgreSQL's processes say what they are; a backend's title names its user, database, peer and state
        name = cmd.startsWith('postgres:')
          ? cmd.replace(/^postgres: (\S+ \S+ \S+\(\d+\)|\S+ \S+ \[local\]) .*$/, 'postgres: a backend').slice(0, 40)
          : cmd.split(' ')[0].split('/').pop() || `pid ${pid}`;
      } catch {
        name = `pid ${pid}`;
      }
      this.names.set(pid, name);
    }
    return name;
  }

  /** CPU used and (main thread) run-queue wait per process name between two wall-clock times, largest first. */
  window(from: number, to: number): CpuWindow {
    const a = this.at(from, 'before');
    const b = this.at(to, 'after');
    if (!a || !b || a === b) return [];
    const byName = new Map<string, { cpuMs: number; waitMs: number }>();
    for (const [pid, end] of Object.entries(b.procs)) {
      const start = a.procs[Number(pid)];
      if (!start) continue;
      const cpuMs = (end[0] - start[0]) * 10;
      const waitMs = (end[2] - start[2]) / 1e6;
      if (cpuMs === 0 && waitMs < 0.5) continue;
      const name = this.nameOf(Number(pid));
      const sum = byName.get(name) ?? { cpuMs: 0, waitMs: 0 };
      sum.cpuMs += cpuMs;
      sum.waitMs += waitMs;
      byName.set(name, sum);
    }
    return [...byName].map(([name, v]) => ({ name, ...v })).sort((x, y) => y.cpuMs + y.waitMs - (x.cpuMs + x.waitMs));
  }

  /** The window's length as sampled (the samples around it), for reading the figures against. */
  span(from: number, to: number): number {
    const a = this.at(from, 'before');
    const b = this.at(to, 'after');
    return a && b ? b.t - a.t : 0;
  }

  private at(t: number, side: 'before' | 'after'): Sample | undefined {
    if (side === 'before') return [...this.samples].reverse().find((s) => s.t <= t) ?? this.samples[0];
    return this.samples.find((s) => s.t >= t) ?? this.samples.at(-1);
  }
}

/** A window's figures on one line: the five busiest processes, CPU ms and the main thread's wait ms. */
export const describeWindow = (w: CpuWindow, top = 6): string =>
  w
    .slice(0, top)
    .map((p) => `${p.name} ${p.cpuMs.toFixed(0)}${p.waitMs >= 1 ? `+${p.waitMs.toFixed(0)}w` : ''}`)
    .join(', ');
