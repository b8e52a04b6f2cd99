import { startServer } from './server.ts';

try {
  const running = await startServer();
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
  let stopping = false;
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => {
      if (stopping) return;
      stopping = true;
      running.stop().then(
        () => process.exit(0),
        (e: unknown) => {
          process.stderr.write(`stopping failed: ${e instanceof Error ? e.message : String(e)}\n`);
          process.exit(1);
        },
      );
    });
  }
} catch (e) {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}
