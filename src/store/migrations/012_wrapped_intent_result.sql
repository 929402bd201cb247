-- An activity keeps its intent and result under the keys its answer shows them (e.g.
-- {"verifyOtpIntentV2": {…}}): one activity type may take several shapes (verify_otp V1 and V2), and
-- the answer is written from the stored text without asking which.
UPDATE activities
   SET intent = '{"' || k.intent_key || '":' || intent || '}',
       result = CASE WHEN result IS NULL THEN NULL ELSE jsonb_build_object(k.result_key, result) END
  FROM (VALUES
    ('ACTIVITY_TYPE_INIT_OTP_AUTH_V3', 'initOtpAuthIntentV3', 'initOtpAuthResultV2'),
    ('ACTIVITY_TYPE_VERIFY_OTP', 'verifyOtpIntent', 'verifyOtpResult'),
    ('ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', 'createSmartContractInterfaceIntent', 'createSmartContractInterfaceResult'),
    ('ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE', 'deleteSmartContractInterfaceIntent', 'deleteSmartContractInterfaceResult')
  ) AS k (type, intent_key, result_key)
 WHERE activities.type = k.type;
