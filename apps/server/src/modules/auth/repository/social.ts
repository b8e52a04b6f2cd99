import type { Db } from '../../../db/database.ts';
import { defineQueries } from '../../../db/query-spec.ts';
import { TenantScope } from '../../../db/tenant-scope.ts';

/** A started flow: what the callback must match. */
export interface NewFlow {
  stateHash: string;
  provider: string;
  nonce: string;
  codeVerifier: string;
  redirectUri: string;
  linkUserId: number | null;
  expiresAt: Date;
}

/** An identity a provider vouched for. */
export interface Identity {
  provider: string;
  subject: string;
  email: string | null;
  name: string | null;
}

/**
 * Every statement of social login: started flows (`social_flows`), link offers (`social_link_tickets`), the
 * identities linked to users (`user_identities`), and the user a flow or link is for.
 */
export class SocialRepository {
  constructor(private db: Db) {}

  /** Deletes flows and link offers that expired before `before`. */
  async sweepExpired(before: Date): Promise<void> {
    await this.db.deleteFrom('social_flows').where('expires_at', '<', before).execute();
    await this.db.deleteFrom('social_link_tickets').where('expires_at', '<', before).execute();
  }

  async insertFlow(f: NewFlow): Promise<void> {
    await this.db
      .insertInto('social_flows')
      .values({
        state_hash: f.stateHash,
        provider: f.provider,
        nonce: f.nonce,
        code_verifier: f.codeVerifier,
        redirect_uri: f.redirectUri,
        link_user_id: f.linkUserId,
        expires_at: f.expiresAt,
        used_at: null,
      })
      .execute();
  }

  /** An unused flow of this state, without claiming it. */
  findOpenFlow(stateHash: string) {
    return this.db
      .selectFrom('social_flows')
      .select(['nonce', 'provider', 'link_user_id'])
      .where('state_hash', '=', stateHash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
  }

  /** Claims the unused flow of this state (one claim wins); answers it. */
  claimFlow(stateHash: string) {
    return this.db
      .updateTable('social_flows')
      .set({ used_at: new Date() })
      .where('state_hash', '=', stateHash)
      .where('used_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
  }

  /** The user an identity is linked to. */
  findIdentityOwner(provider: string, subject: string) {
    return this.db
      .selectFrom('user_identities')
      .select(['user_id'])
      .where('provider', '=', provider)
      .where('subject', '=', subject)
      .executeTakeFirst();
  }

  async insertLinkTicket(ticketHash: string, v: Identity, expiresAt: Date): Promise<void> {
    await this.db
      .insertInto('social_link_tickets')
      .values({
        ticket_hash: ticketHash,
        provider: v.provider,
        subject: v.subject,
        email: v.email,
        name: v.name,
        expires_at: expiresAt,
        used_at: null,
      })
      .execute();
  }

  /** A user by id (any tenant): whom a flow links for. */
  findUser(userId: number) {
    return this.db
      .selectFrom('users')
      .select(['id', 'tenant_id', 'username'])
      .where('id', '=', userId)
      .executeTakeFirst();
  }

  /** Links the identity to the user; answers the new link's id, none when the identity is linked already. */
  async insertIdentity(userId: number, tenantId: number, v: Identity): Promise<number | undefined> {
    const row = await this.db
      .insertInto('user_identities')
      .values({
        user_id: userId,
        tenant_id: tenantId,
        provider: v.provider,
        subject: v.subject,
        email: v.email,
        name: v.name,
      })
      .onConflict((oc) => oc.columns(['provider', 'subject']).doNothing())
      .returning(['id'])
      .executeTakeFirst();
    return row?.id;
  }

  /** Whether a link ticket is unused and fresh (nothing is consumed). */
  async ticketOpen(ticketHash: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('social_link_tickets')
      .select('ticket_hash')
      .where('ticket_hash', '=', ticketHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', new Date())
      .executeTakeFirst();
    return !!row;
  }

  /** Consumes an unused, fresh link ticket; answers the identity it offers. */
  redeemTicket(ticketHash: string): Promise<Identity | undefined> {
    return this.db
      .updateTable('social_link_tickets')
      .set({ used_at: new Date() })
      .where('ticket_hash', '=', ticketHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', new Date())
      .returning(['provider', 'subject', 'email', 'name'])
      .executeTakeFirst();
  }

  /** The identities linked to the user, oldest first. */
  listIdentities(tenantId: number, userId: number) {
    return new TenantScope(this.db, tenantId)
      .selectFrom('user_identities')
      .select(['id', 'provider', 'subject', 'email', 'name', 'created_at'])
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /** Unlinks one of the user's own identities; answers it. */
  deleteIdentity(tenantId: number, userId: number, id: number) {
    return new TenantScope(this.db, tenantId)
      .deleteFrom('user_identities')
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .returning(['id', 'provider', 'subject', 'email', 'name'])
      .executeTakeFirst();
  }
}

const hash = '9f2c4e1a7b3d5f608e1c2a4b6d8f0e1a3c5e7f9b1d3f5a7c9e1b3d5f7a9c1e3b';
const identity: Identity = { provider: 'corp', subject: '248289761001', email: 'li.wei@example.com', name: 'Li Wei' };

export const socialQueries = defineQueries(SocialRepository, {
  sweepExpired: [[new Date('2026-02-28T08:00:00Z')]],
  insertFlow: [
    [
      {
        stateHash: hash,
        provider: 'corp',
        nonce: 'q8YtI1m0c4xZ2vX9wQe3r5T7y9U1i3O5p7A9s1D3f5G',
        codeVerifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
        redirectUri: 'https://console.example.com/apiAdmin/socialLogin/callback',
        linkUserId: null,
        expiresAt: new Date('2026-03-01T08:10:00Z'),
      },
    ],
  ],
  findOpenFlow: [[hash]],
  claimFlow: [[hash]],
  findIdentityOwner: [['corp', '248289761001']],
  insertLinkTicket: [[hash, identity, new Date('2026-03-01T08:10:00Z')]],
  findUser: [[41]],
  insertIdentity: [[41, 3, identity]],
  ticketOpen: [[hash]],
  redeemTicket: [[hash]],
  listIdentities: [[3, 41]],
  deleteIdentity: [[3, 41, 7]],
});
