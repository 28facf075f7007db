/** The parts of @peertube/http-signature (draft-cavage HTTP Signatures) this plugin uses. */
declare module '@peertube/http-signature' {
  export interface ParsedSignature {
    scheme: string;
    params: { keyId: string; algorithm: string; headers: string[]; signature: string };
    signingString: string;
    algorithm: string;
    keyId: string;
  }
  export interface ParseOptions {
    /** Headers that must be among the signed ones. */
    headers?: string[];
    /** Seconds the Date header may be off. */
    clockSkew?: number;
    algorithms?: string[];
    authorizationHeaderName?: string;
    strict?: boolean;
  }
  export interface SignedRequest {
    method: string;
    url: string;
    httpVersion: string;
    headers: Record<string, string | string[] | undefined>;
  }
  export function parseRequest(request: SignedRequest, options?: ParseOptions): ParsedSignature;
  export function verifySignature(parsed: ParsedSignature, publicKeyPem: string): boolean;
}
