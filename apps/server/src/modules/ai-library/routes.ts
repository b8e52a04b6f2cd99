import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { PERMISSIONS, envelopeSchema, pagedEnvelope } from '@cpc/contracts';
import {
  ocrIdParams,
  ocrJob,
  ocrListQuery,
  ocrPrintBody,
  ocrPrinted,
  ocrStatus,
  ocrSubmitBody,
} from '@cpc/contracts/ai-library';
import { actorOf, caller } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';
import type { OcrService } from './service.ts';

/** The AI library's cloud OCR in the console: submit an uploaded image, see the jobs and results, print one. */
export const aiLibraryRoutes: FastifyPluginAsyncZod<{ ocr: OcrService }> = async (app, { ocr }) => {
  const tags = ['ai library'];
  const view = { permission: PERMISSIONS.aiLibraryView };
  const edit = { permission: PERMISSIONS.aiLibraryEdit };

  app.get(
    '/aiLibrary/ocr/jobs',
    {
      config: view,
      schema: {
        tags,
        summary: 'Text-recognition jobs of the tenant, newest first',
        querystring: ocrListQuery,
        response: { 200: pagedEnvelope(ocrJob) },
      },
    },
    async (req) => ok(await ocr.list(caller(req), req.query)),
  );
  app.get(
    '/aiLibrary/ocr/jobs/:id',
    {
      config: view,
      schema: {
        tags,
        summary: 'One job with its recognised text',
        params: ocrIdParams,
        response: { 200: envelopeSchema(ocrJob) },
      },
    },
    async (req) => ok(await ocr.get(caller(req), req.params.id)),
  );
  app.get(
    '/aiLibrary/ocr/status',
    {
      config: view,
      schema: {
        tags,
        summary: 'Jobs queued or running, the tenant limit and the pool size',
        response: { 200: envelopeSchema(ocrStatus) },
      },
    },
    async (req) => ok(await ocr.status(caller(req).tenantId)),
  );
  app.post(
    '/aiLibrary/ocr/jobs',
    {
      config: edit,
      schema: {
        tags,
        summary:
          'Recognise the text of an uploaded image (jpg, png or webp by its bytes, ≤ 10 MB); 429 over the tenant limit',
        body: ocrSubmitBody,
        response: { 200: envelopeSchema(ocrJob) },
      },
    },
    async (req) => ok(await ocr.submit(caller(req), actorOf(req), req.body.objectKey)),
  );
  app.post(
    '/aiLibrary/ocr/jobs/:id/print',
    {
      config: edit,
      schema: {
        tags,
        summary: "Print a done job's text as a receipt on a device (through an active app key of the tenant)",
        params: ocrIdParams,
        body: ocrPrintBody,
        response: { 200: envelopeSchema(ocrPrinted) },
      },
    },
    async (req) => ok(await ocr.print(caller(req), actorOf(req), req.params.id, req.body)),
  );
};
