// The object storage moved to ./storage/ (issue 17: a local-disk and an S3 driver); callers import it from here.
export * from './storage/index.ts';
