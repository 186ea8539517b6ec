/** The approvals table could not be read or written, or a caller passed an invalid value. */
export class ApprovalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ApprovalError';
  }
}
