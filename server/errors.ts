import { M } from '../common/messages';

/** An error a caller can act on; the one error handler renders it as {error, code, field?}. */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export const invalid = (message: string, field?: string) => new AppError(400, 'invalid', message, field);
export const unauthenticated = (message: string = M.signInRequired) => new AppError(401, 'unauthenticated', message);
export const forbidden = (message: string = M.forbidden) => new AppError(403, 'forbidden', message);
export const notFound = (message: string = M.notFound) => new AppError(404, 'not_found', message);
export const conflict = (message: string, extra?: Record<string, unknown>) => new AppError(409, 'conflict', message, undefined, extra);
export const tooLarge = (message: string) => new AppError(413, 'too_large', message);
export const tooManyRequests = (message: string = M.tooManyRequests) => new AppError(429, 'rate_limited', message);
export const unavailable = (message = 'The service is temporarily unavailable. Please try again shortly.') => new AppError(503, 'unavailable', message);
