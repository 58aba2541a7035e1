/** A received message that breaks the protocol: `field` names the offending part (./validate.ts, ./validateCompare.ts). */
export class ProtocolError extends Error {
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(`invalid message: ${field} ${detail}`);
    this.name = 'ProtocolError';
  }
}
