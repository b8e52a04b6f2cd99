import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Scheduler, Worker } from 'tesseract.js';
import { OCR_LANGUAGES, type OcrLine } from '@cpc/contracts';

const require = createRequire(import.meta.url);

/** What one recognition gives. */
export interface OcrResult {
  text: string;
  lines: OcrLine[];
  language: string;
  durationMs: number;
}

/**
 * The folder tesseract.js reads its trained data from: the LSTM (`4.0.0_best_int`) data of the npm packages
 * `@tesseract.js-data/chi_sim` and `@tesseract.js-data/eng`, linked into one folder because `langPath` is one
 * folder for all languages. Nothing is fetched: a local `langPath` is read from the file system.
 */
async function tessdataDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cpc-tessdata-'));
  for (const lang of OCR_LANGUAGES) {
    const pkg = path.dirname(require.resolve(`@tesseract.js-data/${lang}/package.json`));
    await fs.symlink(
      path.join(pkg, '4.0.0_best_int', `${lang}.traineddata.gz`),
      path.join(dir, `${lang}.traineddata.gz`),
    );
  }
  return dir;
}

/** Between two CJK characters tesseract puts a space of its own (one per "word"): Chinese has none. */
const CJK = '\\p{Script=Han}\\u3000-\\u303f\\uff00-\\uffef';
const CJK_GAP = new RegExp(`(?<=[${CJK}]) +(?=[${CJK}])`, 'gu');
export const tidyLine = (s: string) =>
  s
    .replace(CJK_GAP, '')
    .replace(/[ \t]+/g, ' ')
    .trim();

/**
 * A pool of tesseract.js workers (worker_threads in Node) behind one scheduler: recognition runs off the event
 * loop, `size` images at a time. Started on the first job (loading the trained data takes a second or two per
 * worker), terminated by `close()`.
 */
export class OcrPool {
  private scheduler: Scheduler | null = null;
  private starting: Promise<Scheduler> | null = null;
  private dataDir: string | null = null;
  private closed = false;

  constructor(readonly size: number) {}

  get started(): boolean {
    return this.scheduler !== null;
  }

  private start(): Promise<Scheduler> {
    if (this.closed) return Promise.reject(new Error('the OCR pool is closed'));
    this.starting ??= (async () => {
      this.dataDir = await tessdataDir();
      // loaded with the first job: a server that never recognises an image never loads tesseract.js
      const { createScheduler, createWorker, OEM } = await import('tesseract.js');
      const scheduler = createScheduler();
      const workers: Worker[] = await Promise.all(
        Array.from({ length: this.size }, () =>
          createWorker([...OCR_LANGUAGES], OEM.LSTM_ONLY, {
            langPath: this.dataDir!,
            gzip: true,
            cacheMethod: 'none',
          }),
        ),
      );
      workers.forEach((w) => scheduler.addWorker(w));
      this.scheduler = scheduler;
      return scheduler;
    })();
    return this.starting;
  }

  /** Recognises the text of an image (jpg, png, webp bytes). */
  async recognize(image: Buffer): Promise<OcrResult> {
    const scheduler = await this.start();
    const t0 = performance.now();
    const r = await scheduler.addJob('recognize', image, {}, { text: true, blocks: true });
    const lines: OcrLine[] = [];
    for (const b of r.data.blocks ?? [])
      for (const p of b.paragraphs)
        for (const l of p.lines) {
          const text = tidyLine(l.text);
          if (text) lines.push({ text, confidence: Math.round(l.confidence * 10) / 10 });
        }
    return {
      text: lines.map((l) => l.text).join('\n'),
      lines,
      language: OCR_LANGUAGES.join('+'),
      durationMs: Math.round(performance.now() - t0),
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const starting = this.starting;
    if (starting) await starting.then((s) => s.terminate()).catch(() => {});
    this.scheduler = null;
    if (this.dataDir) await fs.rm(this.dataDir, { recursive: true, force: true });
  }
}
