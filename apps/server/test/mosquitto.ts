import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort } from '../src/db/embedded.ts';

export const MOSQUITTO = process.env.MOSQUITTO_BIN ?? '/usr/sbin/mosquitto';
const MOSQUITTO_PASSWD = process.env.MOSQUITTO_PASSWD_BIN ?? '/usr/bin/mosquitto_passwd';
/** Debian's package ships the dynamic-security plugin beside the broker. */
export const DYNSEC_PLUGIN =
  process.env.MOSQUITTO_DYNSEC_PLUGIN ?? '/usr/lib/x86_64-linux-gnu/mosquitto_dynamic_security.so';

export interface Mosquitto {
  /** mqtt://127.0.0.1:<port> of the devices' listener (client id = user name = sn). */
  url: string;
  /** The server nodes' listener with a user's credentials, for MQTT_URL. */
  urlFor(user: string): string;
  /** Adds or changes users (user → password) of the password file and reloads the broker (`passwd` mode). */
  setUsers(users: Record<string, string>): Promise<void>;
  stop(): Promise<void>;
}

export interface MosquittoOptions {
  /**
   * `passwd`: a password file and the pattern ACL of docs/device-protocol.md, devices provisioned by hand;
   * `dynsec`: the dynamic-security plugin, devices provisioned by the server (MQTT_DYNSEC=on).
   */
  mode?: 'passwd' | 'dynsec';
  serverUsers: Record<string, string>;
  /** Devices of the password file (`passwd` mode): sn → static credential. */
  users?: Record<string, string>;
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

/** A dynamic-security client's password as the plugin stores it: PBKDF2-SHA512, 64 bytes, base64. */
function dynsecPassword(password: string) {
  const salt = randomBytes(12);
  const iterations = 101;
  return {
    password: pbkdf2Sync(password, salt, iterations, 64, 'sha512').toString('base64'),
    salt: salt.toString('base64'),
    iterations,
  };
}

/**
 * The dynamic-security configuration of docs/device-protocol.md: nothing allowed by default but receiving, and
 * the server nodes' role (every device topic, the shared subscription, the plugin's control topics). The
 * server creates a client and a role per device itself.
 */
function dynsecFile(serverUsers: Record<string, string>): string {
  const acl = (acltype: string, topic: string) => ({ acltype, topic, priority: 0, allow: true });
  return JSON.stringify(
    {
      defaultACLAccess: { publishClientSend: false, publishClientReceive: true, subscribe: false, unsubscribe: true },
      clients: Object.entries(serverUsers).map(([username, password]) => ({
        username,
        textname: 'Cloud Print server node',
        roles: [{ rolename: 'cpc-server' }],
        ...dynsecPassword(password),
      })),
      groups: [],
      roles: [
        {
          rolename: 'cpc-server',
          acls: [
            acl('publishClientSend', 'cp/v1/#'),
            acl('subscribePattern', 'cp/v1/#'),
            acl('subscribePattern', '$share/#'),
            acl('publishClientSend', '$CONTROL/dynamic-security/#'),
            acl('subscribePattern', '$CONTROL/dynamic-security/#'),
            acl('publishClientReceive', '$CONTROL/dynamic-security/#'),
          ],
        },
      ],
    },
    null,
    2,
  );
}

/**
 * Debian's Mosquitto on ephemeral loopback ports with a generated configuration: no anonymous access, a listener
 * for devices that takes the user name as the client id (a device cannot take another's id and push it off),
 * another for the server nodes (which share a user, each with its own client id), and either a password file
 * with the pattern ACL above or the dynamic-security plugin.
 */
export async function startMosquitto(opts: MosquittoOptions): Promise<Mosquitto> {
  const mode = opts.mode ?? 'passwd';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-mosquitto-'));
  const passwd = path.join(dir, 'passwd');
  const users: Record<string, string> = { ...opts.serverUsers, ...opts.users };
  const writePasswords = () => {
    fs.writeFileSync(
      passwd,
      Object.entries(users)
        .map(([u, p]) => `${u}:${p}`)
        .join('\n') + '\n',
      { mode: 0o600 },
    );
    const r = spawnSync(MOSQUITTO_PASSWD, ['-U', passwd], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`mosquitto_passwd failed: ${r.stderr || r.error}`);
  };
  let security: string[];
  if (mode === 'passwd') {
    writePasswords();
    fs.writeFileSync(path.join(dir, 'acl'), aclFile(Object.keys(opts.serverUsers)));
    security = [`password_file ${passwd}`, `acl_file ${path.join(dir, 'acl')}`];
  } else {
    const file = path.join(dir, 'dynamic-security.json');
    fs.writeFileSync(file, dynsecFile(opts.serverUsers), { mode: 0o600 });
    security = [`plugin ${DYNSEC_PLUGIN}`, `plugin_opt_config_file ${file}`];
  }
  const [devicePort, serverPort] = [await freePort(), await freePort()];
  const conf = [
    'per_listener_settings false',
    'allow_anonymous false',
    ...security,
    'persistence false',
    'log_dest stderr',
    'log_type error',
    'log_type warning',
    // as root Mosquitto would switch to the `mosquitto` user, who cannot read this temporary folder
    ...(process.getuid?.() === 0 ? ['user root'] : []),
    `listener ${devicePort} 127.0.0.1`,
    'use_username_as_clientid true',
    `listener ${serverPort} 127.0.0.1`,
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'mosquitto.conf'), conf + '\n');
  const child: ChildProcess = spawn(MOSQUITTO, ['-c', path.join(dir, 'mosquitto.conf')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += String(d)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitForPort(devicePort, child, () => stderr);
  await waitForPort(serverPort, child, () => stderr);
  return {
    url: `mqtt://127.0.0.1:${devicePort}`,
    urlFor: (user) => `mqtt://${encodeURIComponent(user)}:${encodeURIComponent(users[user])}@127.0.0.1:${serverPort}`,
    async setUsers(more) {
      if (mode !== 'passwd') throw new Error('setUsers: the dynamic-security broker is provisioned by the server');
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
