// What kind of API key a credential is: one an operator or a user created, the session key of an
// otp_login, the key of an otp_auth or of an email_auth (a browser client holds it as its session), or
// the recovery key of init_user_email_recovery (it stamps recover_user only). The store keeps
// it; the wire's refusals word themselves by it.
export type ApiKeyKind = 'api_key' | 'session' | 'otp_auth' | 'email_auth' | 'recovery';
