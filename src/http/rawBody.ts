// The raw JSON body every stamped route verifies its stamp over (a file of its own: the routes take
// it, and the app that registers them must not be imported by them).
import { malformedRequest, unsupportedMediaType } from '../errors.ts';

/** The raw JSON body of a request, or the right error when there is none. */
export function rawBody(request: { body: unknown; headers: Record<string, string | string[] | undefined> }): Buffer {
  if (Buffer.isBuffer(request.body)) return request.body;
  const contentType = request.headers['content-type'];
  if (contentType === undefined) throw unsupportedMediaType(undefined);
  throw malformedRequest('request body is empty; send the activity as a JSON object');
}
