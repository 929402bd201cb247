// Written from the activity handlers by `npm run -s generate` (src/activities/parameterTypes.ts): do not edit by hand.
// The parameters of each activity type as a client sends them, in a file that imports nothing, so the console and the
// CLI type their submissions with it: `submit('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', {…})`.

/** The activity types each path of POST /public/v1/submit/<path> takes. */
export interface ActivityTypesOfPath {
  init_otp_auth: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3';
  init_otp: 'ACTIVITY_TYPE_INIT_OTP_V3';
  verify_otp: 'ACTIVITY_TYPE_VERIFY_OTP_V2' | 'ACTIVITY_TYPE_VERIFY_OTP';
  otp_login: 'ACTIVITY_TYPE_OTP_LOGIN_V2' | 'ACTIVITY_TYPE_OTP_LOGIN';
  stamp_login: 'ACTIVITY_TYPE_STAMP_LOGIN';
  oauth_login: 'ACTIVITY_TYPE_OAUTH_LOGIN';
  otp_auth: 'ACTIVITY_TYPE_OTP_AUTH';
  create_read_write_session: 'ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2';
  create_read_only_session: 'ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION';
  email_auth: 'ACTIVITY_TYPE_EMAIL_AUTH_V3';
  init_user_email_recovery: 'ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2';
  recover_user: 'ACTIVITY_TYPE_RECOVER_USER';
  create_smart_contract_interface: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE';
  delete_smart_contract_interface: 'ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE';
  create_users: 'ACTIVITY_TYPE_CREATE_USERS_V4';
  update_user: 'ACTIVITY_TYPE_UPDATE_USER';
  update_user_email: 'ACTIVITY_TYPE_UPDATE_USER_EMAIL';
  update_user_phone_number: 'ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER';
  update_user_name: 'ACTIVITY_TYPE_UPDATE_USER_NAME';
  delete_users: 'ACTIVITY_TYPE_DELETE_USERS';
  create_authenticators: 'ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2';
  delete_authenticators: 'ACTIVITY_TYPE_DELETE_AUTHENTICATORS';
  create_oauth_providers: 'ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2' | 'ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS';
  delete_oauth_providers: 'ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS';
  create_user_tag: 'ACTIVITY_TYPE_CREATE_USER_TAG';
  create_api_keys: 'ACTIVITY_TYPE_CREATE_API_KEYS_V2';
  delete_api_keys: 'ACTIVITY_TYPE_DELETE_API_KEYS';
  delete_user_tags: 'ACTIVITY_TYPE_DELETE_USER_TAGS';
  create_policy: 'ACTIVITY_TYPE_CREATE_POLICY_V3';
  create_policies: 'ACTIVITY_TYPE_CREATE_POLICIES';
  update_policy: 'ACTIVITY_TYPE_UPDATE_POLICY_V2' | 'ACTIVITY_TYPE_UPDATE_POLICY';
  delete_policy: 'ACTIVITY_TYPE_DELETE_POLICY';
  delete_policies: 'ACTIVITY_TYPE_DELETE_POLICIES';
  update_root_quorum: 'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM';
  create_sub_organization: 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8' | 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7';
  delete_sub_organization: 'ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION';
  create_webhook_endpoint: 'ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT';
  update_webhook_endpoint: 'ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT';
  delete_webhook_endpoint: 'ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT';
  create_wallet: 'ACTIVITY_TYPE_CREATE_WALLET';
  create_wallet_accounts: 'ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS';
  update_wallet: 'ACTIVITY_TYPE_UPDATE_WALLET';
  delete_wallets: 'ACTIVITY_TYPE_DELETE_WALLETS';
  create_private_keys: 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2';
  delete_private_keys: 'ACTIVITY_TYPE_DELETE_PRIVATE_KEYS';
  sign_raw_payload: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2';
  sign_raw_payloads: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOADS';
  sign_transaction: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2';
  export_wallet: 'ACTIVITY_TYPE_EXPORT_WALLET';
  export_wallet_account: 'ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT';
  init_import_wallet: 'ACTIVITY_TYPE_INIT_IMPORT_WALLET';
  import_wallet: 'ACTIVITY_TYPE_IMPORT_WALLET';
  export_private_key: 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY';
  init_import_private_key: 'ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY';
  import_private_key: 'ACTIVITY_TYPE_IMPORT_PRIVATE_KEY';
  approve_activity: 'ACTIVITY_TYPE_APPROVE_ACTIVITY';
  reject_activity: 'ACTIVITY_TYPE_REJECT_ACTIVITY';
}

/** The parameters of each activity type (a field with a default may be left out). */
export interface ActivityParametersOfType {
  ACTIVITY_TYPE_INIT_OTP_AUTH_V3: {
    otpType: 'OTP_TYPE_EMAIL' | 'OTP_TYPE_SMS';
    contact: string;
    appName: string;
    otpLength?: number;
    alphanumeric?: boolean;
    expirationSeconds?: string;
    sendFromEmailSenderName?: string;
    sendFromEmailAddress?: string;
    replyToEmailAddress?: string;
    emailCustomization?: {
      logoUrl?: string;
      magicLinkTemplate?: string;
      templateVariables?: string;
      templateId?: string;
    };
    smsCustomization?: {
      template?: string;
    };
    userIdentifier?: string;
  };
  ACTIVITY_TYPE_INIT_OTP_V3: {
    otpType: 'OTP_TYPE_EMAIL' | 'OTP_TYPE_SMS';
    contact: string;
    appName: string;
    otpLength?: number;
    alphanumeric?: boolean;
    expirationSeconds?: string;
    sendFromEmailSenderName?: string;
    sendFromEmailAddress?: string;
    replyToEmailAddress?: string;
    emailCustomization?: {
      logoUrl?: string;
      magicLinkTemplate?: string;
      templateVariables?: string;
      templateId?: string;
    };
    smsCustomization?: {
      template?: string;
    };
    userIdentifier?: string;
  };
  ACTIVITY_TYPE_VERIFY_OTP_V2: {
    otpId: string;
    encryptedOtpBundle: string;
    expirationSeconds?: string;
  };
  ACTIVITY_TYPE_VERIFY_OTP: {
    otpId: string;
    encryptedOtpBundle: string;
    expirationSeconds?: string;
  } | {
    otpId: string;
    otpCode: string;
    expirationSeconds?: string;
    publicKey?: string;
  };
  ACTIVITY_TYPE_OTP_LOGIN_V2: {
    verificationToken: string;
    publicKey: string;
    clientSignature: {
      publicKey: string;
      scheme: 'CLIENT_SIGNATURE_SCHEME_API_P256';
      message: string;
      signature: string;
    };
    expirationSeconds?: string;
    invalidateExisting?: boolean;
    sessionProfileId?: string;
  };
  ACTIVITY_TYPE_OTP_LOGIN: {
    verificationToken: string;
    publicKey: string;
    clientSignature?: {
      publicKey: string;
      scheme: 'CLIENT_SIGNATURE_SCHEME_API_P256';
      message: string;
      signature: string;
    };
    expirationSeconds?: string;
    invalidateExisting?: boolean;
    sessionProfileId?: string;
  };
  ACTIVITY_TYPE_STAMP_LOGIN: {
    publicKey: string;
    expirationSeconds?: string;
    invalidateExisting?: boolean;
    sessionProfileId?: string;
  };
  ACTIVITY_TYPE_OAUTH_LOGIN: {
    oidcToken: string;
    publicKey: string;
    expirationSeconds?: string;
    invalidateExisting?: boolean;
    sessionProfileId?: string;
  };
  ACTIVITY_TYPE_OTP_AUTH: {
    otpId: string;
    otpCode: string;
    targetPublicKey: string;
    apiKeyName?: string;
    expirationSeconds?: string;
    invalidateExisting?: boolean;
  };
  ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2: {
    targetPublicKey: string;
    userId?: string;
    apiKeyName?: string;
    expirationSeconds?: string;
    invalidateExisting?: boolean;
  };
  ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION: Record<string, never>;
  ACTIVITY_TYPE_EMAIL_AUTH_V3: {
    email: string;
    targetPublicKey: string;
    apiKeyName?: string;
    expirationSeconds?: string;
    emailCustomization: {
      logoUrl?: string;
      magicLinkTemplate?: string;
      templateVariables?: string;
      templateId?: string;
      appName: string;
    };
    invalidateExisting?: boolean;
    sendFromEmailAddress?: string;
    sendFromEmailSenderName?: string;
    replyToEmailAddress?: string;
  };
  ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2: {
    email: string;
    targetPublicKey: string;
    expirationSeconds?: string;
    emailCustomization: {
      logoUrl?: string;
      magicLinkTemplate?: string;
      templateVariables?: string;
      templateId?: string;
      appName: string;
    };
    sendFromEmailAddress?: string;
    sendFromEmailSenderName?: string;
    replyToEmailAddress?: string;
  };
  ACTIVITY_TYPE_RECOVER_USER: {
    authenticator: {
      authenticatorName: string;
      challenge: string;
      attestation: {
        [key: string]: unknown;
      };
    };
    userId: string;
  };
  ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE: {
    smartContractAddress: string;
    smartContractInterface: string;
    type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM' | 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA';
    label: string;
    notes?: string;
  };
  ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE: {
    smartContractInterfaceId: string;
  };
  ACTIVITY_TYPE_CREATE_USERS_V4: {
    users: Array<{
      userName: string;
      userEmail?: string;
      userPhoneNumber?: string;
      authenticators?: Array<{
        authenticatorName: string;
        challenge: string;
        attestation: {
          [key: string]: unknown;
        };
      }>;
      oauthProviders?: Array<{
        providerName: string;
        oidcToken?: string;
        oidcClaims?: unknown;
      }>;
      apiKeys?: Array<{
        apiKeyName: string;
        publicKey: string;
        curveType: 'API_KEY_CURVE_P256';
        expirationSeconds?: string;
      }>;
      userTags?: Array<string>;
    }>;
  };
  ACTIVITY_TYPE_UPDATE_USER: {
    userId: string;
    userName?: string;
    userEmail?: string;
    userTagIds?: Array<string>;
    userPhoneNumber?: string;
  };
  ACTIVITY_TYPE_UPDATE_USER_EMAIL: {
    userId: string;
    userEmail: string;
    verificationToken?: string;
  };
  ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER: {
    userId: string;
    userPhoneNumber: string;
    verificationToken?: string;
  };
  ACTIVITY_TYPE_UPDATE_USER_NAME: {
    userId: string;
    userName: string;
  };
  ACTIVITY_TYPE_DELETE_USERS: {
    userIds: Array<string>;
  };
  ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2: {
    userId: string;
    authenticators: Array<{
      authenticatorName: string;
      challenge: string;
      attestation: {
        [key: string]: unknown;
      };
    }>;
  };
  ACTIVITY_TYPE_DELETE_AUTHENTICATORS: {
    userId: string;
    authenticatorIds: Array<string>;
  };
  ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2: {
    userId: string;
    oauthProviders: Array<{
      providerName: string;
      oidcToken?: string;
      oidcClaims?: unknown;
    }>;
  };
  ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS: {
    userId: string;
    oauthProviders: Array<{
      providerName: string;
      oidcToken?: string;
      oidcClaims?: unknown;
    }>;
  };
  ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS: {
    userId: string;
    providerIds: Array<string>;
  };
  ACTIVITY_TYPE_CREATE_USER_TAG: {
    userTagName: string;
    userIds: Array<string>;
  };
  ACTIVITY_TYPE_CREATE_API_KEYS_V2: {
    userId: string;
    apiKeys: Array<{
      apiKeyName: string;
      publicKey: string;
      curveType: 'API_KEY_CURVE_P256';
      expirationSeconds?: string;
    }>;
  };
  ACTIVITY_TYPE_DELETE_API_KEYS: {
    userId: string;
    apiKeyIds: Array<string>;
  };
  ACTIVITY_TYPE_DELETE_USER_TAGS: {
    userTagIds: Array<string>;
  };
  ACTIVITY_TYPE_CREATE_POLICY_V3: {
    policyName: string;
    effect: 'EFFECT_ALLOW' | 'EFFECT_DENY';
    condition?: string;
    consensus?: string;
    notes: string;
  };
  ACTIVITY_TYPE_CREATE_POLICIES: {
    policies: Array<{
      policyName: string;
      effect: 'EFFECT_ALLOW' | 'EFFECT_DENY';
      condition?: string;
      consensus?: string;
      notes: string;
    }>;
  };
  ACTIVITY_TYPE_UPDATE_POLICY_V2: {
    policyId: string;
    policyName?: string;
    policyEffect?: 'EFFECT_ALLOW' | 'EFFECT_DENY';
    policyCondition?: string;
    policyConsensus?: string;
    policyNotes?: string;
  };
  ACTIVITY_TYPE_UPDATE_POLICY: {
    policyId: string;
    policyName?: string;
    policyEffect?: 'EFFECT_ALLOW' | 'EFFECT_DENY';
    policyCondition?: string;
    policyConsensus?: string;
    policyNotes?: string;
  };
  ACTIVITY_TYPE_DELETE_POLICY: {
    policyId: string;
  };
  ACTIVITY_TYPE_DELETE_POLICIES: {
    policyIds: Array<string>;
  };
  ACTIVITY_TYPE_UPDATE_ROOT_QUORUM: {
    threshold: number;
    userIds: Array<string>;
  };
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8: {
    subOrganizationName: string;
    rootUsers: Array<{
      userName: string;
      userEmail?: string;
      userPhoneNumber?: string;
      authenticators?: Array<{
        authenticatorName: string;
        challenge: string;
        attestation: {
          [key: string]: unknown;
        };
      }>;
      oauthProviders?: Array<{
        providerName: string;
        oidcToken?: string;
        oidcClaims?: unknown;
      }>;
      apiKeys?: Array<{
        apiKeyName: string;
        publicKey: string;
        curveType: 'API_KEY_CURVE_P256';
        expirationSeconds?: string;
      }>;
    }>;
    rootQuorumThreshold: number;
    wallet?: {
      walletName: string;
      accounts: Array<{
        curve: string;
        pathFormat: 'PATH_FORMAT_BIP32';
        path: string;
        addressFormat: string;
      }>;
      mnemonicLength?: number;
    };
    disableEmailRecovery?: boolean;
    disableEmailAuth?: boolean;
    disableSmsAuth?: boolean;
    disableOtpEmailAuth?: boolean;
    verificationToken?: string;
    clientSignature?: unknown;
  };
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7: {
    subOrganizationName: string;
    rootUsers: Array<{
      userName: string;
      userEmail?: string;
      userPhoneNumber?: string;
      authenticators?: Array<{
        authenticatorName: string;
        challenge: string;
        attestation: {
          [key: string]: unknown;
        };
      }>;
      oauthProviders?: Array<{
        providerName: string;
        oidcToken?: string;
        oidcClaims?: unknown;
      }>;
      apiKeys?: Array<{
        apiKeyName: string;
        publicKey: string;
        curveType: 'API_KEY_CURVE_P256';
        expirationSeconds?: string;
      }>;
    }>;
    rootQuorumThreshold: number;
    wallet?: {
      walletName: string;
      accounts: Array<{
        curve: string;
        pathFormat: 'PATH_FORMAT_BIP32';
        path: string;
        addressFormat: string;
      }>;
      mnemonicLength?: number;
    };
    disableEmailRecovery?: boolean;
    disableEmailAuth?: boolean;
    disableSmsAuth?: boolean;
    disableOtpEmailAuth?: boolean;
    verificationToken?: string;
    clientSignature?: unknown;
  };
  ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION: {
    deleteWithoutExport?: boolean;
  };
  ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT: {
    url: string;
    name: string;
    subscriptions?: Array<{
      eventType: string;
      filtersJson?: string;
      isActive?: boolean;
    }>;
  };
  ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT: {
    endpointId: string;
    url?: string;
    name?: string;
    isActive?: boolean;
  };
  ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT: {
    endpointId: string;
  };
  ACTIVITY_TYPE_CREATE_WALLET: {
    walletName: string;
    accounts: Array<{
      curve: string;
      pathFormat: 'PATH_FORMAT_BIP32';
      path: string;
      addressFormat: string;
    }>;
    mnemonicLength?: number;
  };
  ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS: {
    walletId: string;
    accounts: Array<{
      curve: string;
      pathFormat: 'PATH_FORMAT_BIP32';
      path: string;
      addressFormat: string;
    }>;
    persist?: boolean;
  };
  ACTIVITY_TYPE_UPDATE_WALLET: {
    walletId: string;
    walletName?: string;
  };
  ACTIVITY_TYPE_DELETE_WALLETS: {
    walletIds: Array<string>;
    deleteWithoutExport?: boolean;
  };
  ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2: {
    privateKeys: Array<{
      privateKeyName: string;
      curve: string;
      privateKeyTags?: Array<unknown>;
      addressFormats: Array<string>;
    }>;
  };
  ACTIVITY_TYPE_DELETE_PRIVATE_KEYS: {
    privateKeyIds: Array<string>;
    deleteWithoutExport?: boolean;
  };
  ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2: {
    signWith: string;
    payload: string;
    encoding: 'PAYLOAD_ENCODING_HEXADECIMAL' | 'PAYLOAD_ENCODING_TEXT_UTF8' | 'PAYLOAD_ENCODING_EIP712' | 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION';
    hashFunction: 'HASH_FUNCTION_KECCAK256' | 'HASH_FUNCTION_SHA256' | 'HASH_FUNCTION_NO_OP' | 'HASH_FUNCTION_NOT_APPLICABLE';
  };
  ACTIVITY_TYPE_SIGN_RAW_PAYLOADS: {
    signWith: string;
    payloads: Array<string>;
    encoding: 'PAYLOAD_ENCODING_HEXADECIMAL' | 'PAYLOAD_ENCODING_TEXT_UTF8' | 'PAYLOAD_ENCODING_EIP712' | 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION';
    hashFunction: 'HASH_FUNCTION_KECCAK256' | 'HASH_FUNCTION_SHA256' | 'HASH_FUNCTION_NO_OP' | 'HASH_FUNCTION_NOT_APPLICABLE';
  };
  ACTIVITY_TYPE_SIGN_TRANSACTION_V2: {
    signWith: string;
    unsignedTransaction: string;
    type: 'TRANSACTION_TYPE_ETHEREUM' | 'TRANSACTION_TYPE_SOLANA';
  };
  ACTIVITY_TYPE_EXPORT_WALLET: {
    walletId: string;
    targetPublicKey: string;
    language?: 'MNEMONIC_LANGUAGE_ENGLISH' | 'MNEMONIC_LANGUAGE_SIMPLIFIED_CHINESE' | 'MNEMONIC_LANGUAGE_TRADITIONAL_CHINESE' | 'MNEMONIC_LANGUAGE_CZECH' | 'MNEMONIC_LANGUAGE_FRENCH' | 'MNEMONIC_LANGUAGE_ITALIAN' | 'MNEMONIC_LANGUAGE_JAPANESE' | 'MNEMONIC_LANGUAGE_KOREAN' | 'MNEMONIC_LANGUAGE_SPANISH';
  };
  ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT: {
    address: string;
    targetPublicKey: string;
  };
  ACTIVITY_TYPE_INIT_IMPORT_WALLET: {
    userId: string;
  };
  ACTIVITY_TYPE_IMPORT_WALLET: {
    userId: string;
    walletName: string;
    encryptedBundle: string;
    accounts: Array<{
      curve: string;
      pathFormat: 'PATH_FORMAT_BIP32';
      path: string;
      addressFormat: string;
    }>;
  };
  ACTIVITY_TYPE_EXPORT_PRIVATE_KEY: {
    privateKeyId: string;
    targetPublicKey: string;
  };
  ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY: {
    userId: string;
  };
  ACTIVITY_TYPE_IMPORT_PRIVATE_KEY: {
    userId: string;
    privateKeyName: string;
    encryptedBundle: string;
    curve: string;
    addressFormats: Array<string>;
  };
  ACTIVITY_TYPE_APPROVE_ACTIVITY: {
    fingerprint: string;
  };
  ACTIVITY_TYPE_REJECT_ACTIVITY: {
    fingerprint: string;
  };
}

export type ActivityPath = keyof ActivityTypesOfPath;
export type ActivityType = keyof ActivityParametersOfType;
