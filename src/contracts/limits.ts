// The size limit of a smart contract interface, declared once for the server (the activity's
// parameter schema) and the console (which refuses a bigger file before reading it).

/** 400 KiB of UTF-8, the API's documented limit; bytes, not characters, so multi-byte text counts fully. */
export const MAX_INTERFACE_BYTES = 409_600;
