import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { envelopeSchema, OPEN_OCR_MAX_CHARS } from '@cpc/contracts';
import { ocrIdParams, openOcrBody, openOcrJob } from '@cpc/contracts/ai-library';
import { AppError, ok } from '../../plugins/errors.ts';
import type { OcrService } from './service.ts';

/** The base64 text of the image and the rest of the body. */
const BODY_LIMIT = OPEN_OCR_MAX_CHARS + 64 * 1024;

/**
 * Cloud OCR in the signed open API (registered inside the open API's plugin, so its signature check, nonce, rate
 * limit and request log apply): POST /ai/ocr with the image as base64, GET /ai/ocr/:id for the job of this key.
 */
export const openOcrRoutes: FastifyPluginAsyncZod<{ ocr: OcrService }> = async (app, { ocr }) => {
  const tags = ['open api'];
  const keyOf = (req: FastifyRequest) => {
    const k = req.open?.key;
    if (!k || !req.open?.authenticated) throw new AppError(401, 'open.notSigned');
    return k;
  };

  app.post(
    '/ai/ocr',
    {
      bodyLimit: BODY_LIMIT,
      schema: {
        tags,
        operationId: 'submitOcrJob',
        summary:
          'Recognise the text (Chinese and English) of a document image sent as base64 (jpg, png or webp, ≤ 10 MB); ' +
          '`print` prints the text as a receipt on the device once done. 429 when the account has too many jobs queued',
        body: openOcrBody,
        response: { 200: envelopeSchema(openOcrJob) },
      },
    },
    async (req) => ok(await ocr.submitOpen(keyOf(req), req.body, req.open!.ip)),
  );
  app.get(
    '/ai/ocr/:id',
    {
      schema: {
        tags,
        operationId: 'getOcrJob',
        summary: 'One text-recognition job of this key: queued, running, done (with its text) or failed',
        params: ocrIdParams,
        response: { 200: envelopeSchema(openOcrJob) },
      },
    },
    async (req) => ok(await ocr.getOpen(keyOf(req), req.params.id)),
  );
};
