/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, quote or line break. A cell that a spreadsheet would
 * run as a formula (starting with =, +, -, @, or a tab / carriage return before one) gets a leading ' so it
 * stays text (OWASP "CSV injection").
 */
export function csvCell(value: unknown): string {
  let s = value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const csvLine = (cells: unknown[]) => `${cells.map(csvCell).join(',')}\r\n`;
