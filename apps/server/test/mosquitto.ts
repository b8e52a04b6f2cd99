import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort } from '../src/db/embedded.ts';

export const MOSQUITTO = process.env.MOSQUITTO_BIN ?? '/usr/sbin/mosquitto';
const MOSQUITTO_PASSWD = process.env.MOSQUITTO_PASSWD_BIN ?? '/usr/bin/mosquitto_passwd';

export interface Mosquitto {
  /** mqtt://127.0.0.1:<port>, for devices. */
  url: string;
  /** The same with a user's credentials, for MQTT_URL. */
  urlFor(user: string): string;
  /** Adds or changes users (user → password) and reloads the broker. */
  setUsers(users: Record<string, string>): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The ACL of docs/device-protocol.md: server users may use every device topic; every other user (a device,
 * user name = sn) only its own: `%u` is the user name.
 */
function aclFile(serverUsers: string[]): string {
  return [
    ...serverUsers.flatMap((u) => [`user ${u}`, 'topic readwrite cp/v1/#', '']),
    'pattern write cp/v1/%u/up/#',
    'pattern read cp/v1/%u/down/#',
    '',
  ].join('\n');
}

/**
 * Debian's Mosquitto on an ephemeral loopback port with a generated configuration: no anonymous access, a
 * password file hashed with mosquitto_passwd, the pattern ACL above.
 */
export async function startMosquitto(opts: { serverUsers: Record<string, string>; users?: Record<string, string> }): Promise<Mosquitto> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-mosquitto-'));
  const passwd = path.join(dir, 'passwd');
  const users: Record<string, string> = { ...opts.serverUsers, ...opts.users };
  const writePasswords = () => {
    fs.writeFileSync(passwd, Object.entries(users).map(([u, p]) => `${u}:${p}`).join('\n') + '\n', { mode: 0o600 });
    const r = spawnSync(MOSQUITTO_PASSWD, ['-U', passwd], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`mosquitto_passwd failed: ${r.stderr || r.error}`);
  };
  writePasswords();
  fs.writeFileSync(path.join(dir, 'acl'), aclFile(Object.keys(opts.serverUsers)));
  const port = await freePort();
  const conf = [
    `listener ${port} 127.0.0.1`,
    'allow_anonymous false',
    `password_file ${passwd}`,
    `acl_file ${path.join(dir, 'acl')}`,
    'persistence false',
    'log_dest stderr',
    'log_type error',
    'log_type warning',
    // as root Mosquitto would switch to the `mosquitto` user, who cannot read this temporary folder
    ...(process.getuid?.() === 0 ? ['user root'] : []),
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'mosquitto.conf'), conf + '\n');
  const child: ChildProcess = spawn(MOSQUITTO, ['-c', path.join(dir, 'mosquitto.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += String(d)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitForPort(port, child, () => stderr);
  return {
    url: `mqtt://127.0.0.1:${port}`,
    urlFor: (user) => `mqtt://${encodeURIComponent(user)}:${encodeURIComponent(users[user])}@127.0.0.1:${port}`,
    async setUsers(more) {
      Object.assign(users, more);
      writePasswords();
      child.kill('SIGHUP');
      // the reload is quick; give it a moment before devices connect with the new credentials
      await new Promise((r) => setTimeout(r, 300));
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitForPort(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`mosquitto exited: ${stderr()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`mosquitto did not listen on ${port}: ${stderr()}`);
}
