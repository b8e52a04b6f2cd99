/** The user module's statements: the signed-in user's own account, and the users a caller manages. */
export { UserRepository, rolesOf, type Me } from './account.ts';
export { SubAccountRepository, SUB_ACCOUNT, type Manager, type NewUser, type UserChanges } from './sub-accounts.ts';
