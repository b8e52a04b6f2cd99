import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { clientErrorBody, clientErrorResult, envelopeSchema } from '@cpc/contracts';
import { caller } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';

/** Reports a session may write in a window: a broken page in a loop must not fill the log. */
export const CLIENT_ERROR_CAP = 20;
const WINDOW_MS = 60 * 60_000;
/** Sessions remembered at most; the oldest window goes first. */
const MAX_SESSIONS = 10_000;

// a token or a password pasted into a URL or a message stays out of the log
const SECRET = /(bearer\s+)[\w.~+/=-]+|((?:token|password|secret|authorization)["']?\s*[:=]\s*["']?)[^\s"'&,;]+/gi;
const redact = (s: string | undefined) =>
  s?.replace(SECRET, (_m, bearer: string | undefined, key: string | undefined) => `${bearer ?? key}[redacted]`);

/** The console's unexpected errors met by customers (staff read theirs in the error-log panel), at warn level. */
export const systemRoutes: FastifyPluginAsyncZod = async (app) => {
  const counts = new Map<string, { n: number; since: number }>();

  app.post(
    '/system/clientError',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['system'],
        summary: 'Writes an unexpected console error to the server log (capped per session)',
        body: clientErrorBody,
        response: { 200: envelopeSchema(clientErrorResult) },
      },
    },
    async (req) => {
      const u = caller(req);
      const now = Date.now();
      let seen = counts.get(u.sessionId);
      if (!seen || now - seen.since > WINDOW_MS) {
        counts.delete(u.sessionId);
        if (counts.size >= MAX_SESSIONS) counts.delete(counts.keys().next().value!);
        seen = { n: 0, since: now };
        counts.set(u.sessionId, seen);
      }
      if (++seen.n > CLIENT_ERROR_CAP) return ok({ logged: false });
      const { message, stack, url } = req.body;
      req.log.warn(
        {
          clientError: { message: redact(message), stack: redact(stack), url: redact(url) },
          userId: u.id,
          tenantId: u.tenantId,
        },
        'console error',
      );
      return ok({ logged: true });
    },
  );
};
