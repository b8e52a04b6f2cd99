import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/database.ts';

/** Who made a call: the client address (see TRUSTED_PROXIES) and its user agent, for sessions and the audit log. */
export interface ClientInfo {
  ip: string;
  userAgent: string;
}

/** Ends every session of the user: logout, password change and disabling all come here. */
export async function endSessions(db: Db, userId: number, reason: string, exceptSession?: string): Promise<void> {
  let q = db
    .updateTable('sessions')
    .set({ revoked_at: new Date(), revoke_reason: reason })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null);
  if (exceptSession) q = q.where('id', '!=', exceptSession);
  await q.execute();
}

export const clientOf = (req: FastifyRequest): ClientInfo => ({
  ip: req.ip,
  userAgent: String(req.headers['user-agent'] ?? ''),
});
