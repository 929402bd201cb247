// A UUID as the wire writes one: 8-4-4-4-12 hex digits, either case. Without flags, so its `source`
// serves as a JSON Schema pattern too.
export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
