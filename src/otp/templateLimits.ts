// The sizes an email template's parts may have, in bytes: a file of its own, without the template
// engine, so the admin API's declarations (which the command line loads) can state them.
export const TEMPLATE_LIMITS = { name: 256, subject: 998, html: 256 * 1024, text: 64 * 1024 } as const;
