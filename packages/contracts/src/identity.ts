import { z } from 'zod';
import { NO_CONTROL_MSG, hasNoControl, isCreditCode, isIdCard } from './validators.ts';
import { accountType } from './auth.ts';

/** Identity authentication (SPEC §4): what a customer submits, what staff review, approve or reject. */

// names and image keys are stored and shown to reviewers: no control characters (PostgreSQL refuses NUL in text)
const identityText = (min: number, max: number) =>
  z.string().trim().min(min).max(max).refine(hasNoControl, NO_CONTROL_MSG);
const imageKey = (required: string) => z.string().min(1, required).max(300).refine(hasNoControl, NO_CONTROL_MSG);

export const individualIdentity = z
  .object({
    type: z.literal('individual'),
    realName: identityText(2, 30),
    idNumber: z.string().refine(isIdCard, 'rule.idNumber'),
    idFrontKey: imageKey('rule.idFrontRequired'),
    idBackKey: imageKey('rule.idBackRequired'),
  })
  .strict();

export const enterpriseIdentity = z
  .object({
    type: z.literal('enterprise'),
    companyName: identityText(2, 100),
    creditCode: z.string().refine(isCreditCode, 'rule.creditCode'),
    legalPerson: identityText(2, 30),
    licenceKey: imageKey('rule.licenceRequired'),
  })
  .strict();

export const identityBody = z.discriminatedUnion('type', [individualIdentity, enterpriseIdentity]);
export type IdentityBody = z.infer<typeof identityBody>;

export const identityView = z.object({
  id: z.number().int(),
  tenantId: z.number().int(),
  type: accountType,
  status: z.number().int(),
  reason: z.string().nullable(),
  realName: z.string().nullable(),
  idNumber: z.string().nullable(),
  companyName: z.string().nullable(),
  creditCode: z.string().nullable(),
  legalPerson: z.string().nullable(),
  /** Signed, short-lived URLs of the images. */
  images: z.record(z.string(), z.string()),
  username: z.string(),
  mobile: z.string().nullable(),
  submittedAt: z.string(),
  reviewedAt: z.string().nullable(),
});
export type IdentityView = z.infer<typeof identityView>;

export const authenticateState = z.object({
  status: z.number().int(),
  type: accountType,
  submission: identityView.nullable(),
});
export type AuthenticateState = z.infer<typeof authenticateState>;

export const identityListQuery = z
  .object({
    pageNo: z.coerce.number().int().min(1).default(1),
    pageSize: z.coerce.number().int().min(1).max(100).default(20),
    status: z.coerce
      .number()
      .int()
      .refine((s) => [1, 2, 3].includes(s), 'rule.identityStatus')
      .optional(),
    keyword: z.string().max(50).refine(hasNoControl, NO_CONTROL_MSG).optional(),
  })
  .strict();

export const identityApproveBody = z.object({ id: z.number().int().positive() }).strict();
export const identityRejectBody = z
  .object({
    id: z.number().int().positive(),
    reason: z.string().trim().min(2).max(200).refine(hasNoControl, NO_CONTROL_MSG),
  })
  .strict();
