// Submits both activities to a running Signet with the ecosystem's own client library, using the
// development credentials that `npm start` writes on first start. Run: npx tsx examples/submit.ts
// (with SIGNET_DATA_DIR set as for the server when it was started with another folder).
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { TurnkeyClient } from '@turnkey/http';
import { exampleCommand, findServer, run } from './devServer.ts';

run(async () => {
  const credentials = await findServer();
  const client = new TurnkeyClient(
    { baseUrl: credentials.baseUrl },
    new ApiKeyStamper({ apiPublicKey: credentials.apiPublicKey, apiPrivateKey: credentials.apiPrivateKey }),
  );

  const otp = await client.initOtpAuth({
    type: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3',
    timestampMs: String(Date.now()),
    organizationId: credentials.organizationId,
    parameters: {
      otpType: 'OTP_TYPE_EMAIL',
      contact: process.env.EXAMPLE_EMAIL ?? 'alice@example.com',
      appName: 'Example Wallet',
    },
  });
  const otpId = otp.activity.result.initOtpAuthResultV2?.otpId;
  console.log('init_otp_auth:', otp.activity.status, 'otpId', otpId);

  const erc20Abi = [
    {
      type: 'function',
      name: 'transfer',
      stateMutability: 'nonpayable',
      inputs: [
        { name: 'to', type: 'address' },
        { name: 'amount', type: 'uint256' },
      ],
      outputs: [{ name: '', type: 'bool' }],
    },
    {
      type: 'event',
      name: 'Transfer',
      anonymous: false,
      inputs: [
        { name: 'from', type: 'address', indexed: true },
        { name: 'to', type: 'address', indexed: true },
        { name: 'value', type: 'uint256', indexed: false },
      ],
    },
  ];

  const contract = await client.createSmartContractInterface({
    type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
    timestampMs: String(Date.now()),
    organizationId: credentials.organizationId,
    parameters: {
      smartContractAddress: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
      smartContractInterface: JSON.stringify(erc20Abi),
      type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
      label: 'USDC (ERC-20 subset)',
    },
  });
  console.log(
    'create_smart_contract_interface:',
    contract.activity.status,
    'smartContractInterfaceId',
    contract.activity.result.createSmartContractInterfaceResult?.smartContractInterfaceId,
  );
  console.log(`next: read the code and verify it: ${exampleCommand('verify.ts', otpId ?? '')}`);
});
