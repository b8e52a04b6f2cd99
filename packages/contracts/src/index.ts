export * from './envelope.ts';
export * from './validators.ts';
export * from './route.ts';
export * from './user.ts';
export * from './crypto.ts';
export * from './notice.ts';
export * from './permissions.ts';
export * from './task.ts';
