import { startFailure, startServer, type Running } from './server.ts';

// A stop asked for (Ctrl-C, SIGTERM, the terminal closing) waits for a start under way: the embedded PostgreSQL
// runs in its own process group and would outlive a process ended by the signal's default action.
let running: Running | undefined;
let stopping = false;
const stop = () => {
  if (stopping || !running) return;
  stopping = true;
  running.stop().then(
    () => process.exit(0),
    (e: unknown) => {
      process.stderr.write(`stopping failed: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
};
let stopAsked = false;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(sig, () => {
    stopAsked = true;
    stop();
  });
}

try {
  running = await startServer();
  const { admin, url } = running;
  const lines = [
    '',
    `  Cloud Print Console is running at ${url}/`,
    `  API documentation: ${url}/apiAdmin/docs`,
    `  Device broker: ${running.mqttUrl}`,
    admin.generated
      ? `  Platform admin: ${admin.username} / ${admin.password}   (generated now and shown only this once; set ADMIN_PASSWORD to choose it)`
      : admin.password
        ? `  Platform admin: ${admin.username} (password from ADMIN_PASSWORD)`
        : `  Platform admin: ${admin.username} (password as printed on first start; set ADMIN_PASSWORD to reset it)`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
  if (stopAsked) stop();
} catch (e) {
  process.stderr.write(`${startFailure(e)}\n`);
  process.exit(1);
}
