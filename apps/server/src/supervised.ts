import readline from 'node:readline';
import { startFailure, startServer, stopInOrder } from './server.ts';

/**
 * The server as a child of another program (the benchmarks): the same start as `npm start`, with a machine
 * reading instead of a person. Once listening it prints one JSON line (`url`, `mqttUrl`, `databaseUrl`). On stdin,
 * the line `memory` answers one JSON line with `process.memoryUsage()` (what of the RSS is V8's heap); any other
 * line, or stdin closing (the parent is gone), stops it cleanly; so do SIGINT (a Ctrl-C on the benchmark reaches
 * its whole process group), SIGTERM and SIGHUP.
 */
const { started, stop } = stopInOrder();
try {
  const running = await startServer();
  process.stdout.write(
    `${JSON.stringify({ url: running.url.replace('localhost', '127.0.0.1'), mqttUrl: running.mqttUrl, databaseUrl: running.databaseUrl })}\n`,
  );
  started(running);
  readline
    .createInterface({ input: process.stdin })
    .on('line', (line) =>
      line.trim() === 'memory'
        ? process.stdout.write(`${JSON.stringify({ memory: process.memoryUsage() })}\n`)
        : stop(),
    )
    .on('close', stop);
} catch (e) {
  process.stderr.write(`${startFailure(e)}\n`);
  process.exit(1);
}
