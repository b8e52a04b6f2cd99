import { startFailure, startServer, stopInOrder } from './server.ts';

const lifecycle = stopInOrder();

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
  lifecycle.started(running);
} catch (e) {
  process.stderr.write(`${startFailure(e)}\n`);
  process.exit(1);
}
