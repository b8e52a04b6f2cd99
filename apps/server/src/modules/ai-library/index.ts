/** The ai-library module's public entry: cloud OCR jobs (service, console routes, open-API routes). */
export { OcrPool, type OcrResult } from './engine.ts';
export { OcrService, type OcrOptions } from './service.ts';
export { aiLibraryRoutes } from './routes.ts';
export { openOcrRoutes } from './open-routes.ts';
