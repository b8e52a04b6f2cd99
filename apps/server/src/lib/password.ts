import { hash, verify } from '@node-rs/argon2';

// OWASP's argon2id baseline: 19 MiB, 2 passes.
const OPTIONS = { memoryCost: 19456, timeCost: 2, parallelism: 1 };
let dummyHash: Promise<string> | undefined;

export const hashPassword = (pw: string) => hash(pw, OPTIONS);

/** Verifies; with no stored hash it still spends the same time, so a missing account is not given away. */
export async function verifyPassword(stored: string | undefined, pw: string): Promise<boolean> {
  if (!stored) {
    dummyHash ??= hash('not-a-real-password', OPTIONS);
    await verify(await dummyHash, pw).catch(() => false);
    return false;
  }
  return verify(stored, pw).catch(() => false);
}
