import { fenToYuan } from '@cpc/contracts/order';

/** Integer fen as "¥12.34" (integer arithmetic only: money is never a float here). */
export const formatFen = (fen: number): string => `¥${fenToYuan(fen)}`;

/** A data amount in MB as "500 MB" / "1 GB" / "1.5 GB" (whole GB from 1024 MB). */
export function formatMb(mb: number): string {
  if (Math.abs(mb) >= 1024) {
    const gb = Math.round((mb / 1024) * 100) / 100;
    return `${gb} GB`;
  }
  return `${Math.round(mb * 100) / 100} MB`;
}
