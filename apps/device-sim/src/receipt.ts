import { charColumns } from '@cpc/contracts/print-markup';
import type { PrintedJob } from './device.ts';

/** Columns a printed line takes (a Chinese character two), so the paper's right edge lines up. */
const columnsOf = (line: string) => [...line].reduce((n, ch) => n + charColumns(ch), 0);

/**
 * A printed job as the simulator's command line shows it (`--show-prints`): a header naming the device, the
 * job and its copies, then one copy's lines between the paper's edges, as the printer put them on paper.
 */
export function receiptText(sn: string, job: PrintedJob): string {
  const width = Math.max(16, ...job.lines.map(columnsOf));
  const edge = `+${'-'.repeat(width + 2)}+`;
  return [
    `${sn} printed job ${job.id} (${job.copies} ${job.copies === 1 ? 'copy' : 'copies'}, delivery ${job.attempt}):`,
    edge,
    ...job.lines.map((l) => `| ${l}${' '.repeat(width - columnsOf(l))} |`),
    edge,
  ].join('\n');
}
