// The console's views of policies, users, sub-organizations, smart contract interfaces and the root
// quorum in a real headless Chromium, signed in with an API key: a policy whose condition the server
// refuses shows the server's message at the expression with the cursor on the position it reports,
// and is then fixed, saved, changed and deleted; an ABI file uploaded in the page shows its functions,
// an IDL its instructions; sub-organizations are found by a user's email and phone number; a user and
// a tag are created, a key revoked; a policy waits for approvals once the root quorum needs two. Each
// view fits 375 and 1280 px without scrolling sideways, and every control on it is reached by Tab and
// has a name.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chromiumMissing, launchChromium, pageWithPasskey } from './support/chromium.ts';
import {
  checkKeyboardAndLabels,
  checkNoHorizontalScroll,
  checkShownOnPhone,
  openConsole,
  screenshot,
  signInWithApiKey,
  startConsoleServer,
  type ConsoleServer,
} from './support/console.ts';
import { testDatabases } from './support/databases.ts';
import { postStamped } from './support/http.ts';
import { until } from './support/until.ts';
import type { Credentials } from './support/server.ts';

const ABI = [
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
  { type: 'function', name: 'balanceOf', stateMutability: 'view', inputs: [{ name: 'owner', type: 'address' }], outputs: [{ name: '', type: 'uint256' }] },
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
const TOKEN_ADDRESS = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
/** A counter program's IDL in Anchor's format before 0.30, its program id in its metadata. */
const IDL = {
  version: '0.1.0',
  name: 'counter',
  instructions: [
    {
      name: 'increment',
      accounts: [
        { name: 'counter', isMut: true, isSigner: false },
        { name: 'auth', accounts: [{ name: 'authority', isMut: false, isSigner: true }] },
      ],
      args: [
        { name: 'by', type: { option: 'u32' } },
        { name: 'memo', type: { vec: 'u8' } },
        { name: 'mode', type: { defined: 'Mode' } },
      ],
    },
  ],
  types: [{ name: 'Mode', type: { kind: 'enum', variants: [{ name: 'Fast' }, { name: 'Safe' }] } }],
  metadata: { address: 'Fg6PaFpoGXkYsidMpWTK6W2BeZ7FEfcYkg476zPFsLnS' },
};

for (const tdb of testDatabases) {
  describe(`the console's views (${tdb.name}, headless Chromium)`, { skip: chromiumMissing }, () => {
    let signet: ConsoleServer;
    let browser: Browser;
    let page: Page;
    let org: Credentials;
    const pageErrors: string[] = [];
    let sequence = 0;

    /** Submits as the organization's first user, outside the page (what another client does). */
    async function submit(path: string, type: string, parameters: object) {
      const body = JSON.stringify({ type, timestampMs: String(Date.now() + ++sequence), organizationId: org.organizationId, parameters });
      return postStamped(signet.baseUrl, `/public/v1/submit/${path}`, body, org);
    }

    /** The view as shown fits 375 and 1280 px, every control on it is reached by Tab and named; no script error so far. */
    async function checkLayout() {
      await checkNoHorizontalScroll(page);
      await checkKeyboardAndLabels(page);
      assert.deepEqual(pageErrors, []);
    }

    /** Opens a view by its link in the navigation, as a person does. */
    async function open(title: string, heading = title) {
      await page.getByRole('navigation').getByRole('link', { name: title, exact: true }).click();
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
    }

    before(async () => {
      const started = await Promise.allSettled([
        startConsoleServer(tdb).then((server) => (signet = server)),
        launchChromium().then((launched) => (browser = launched)),
      ]);
      for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason;
      org = await signet.createOrganization('Console views');
      page = await pageWithPasskey(browser, pageErrors, 60_000); // a fresh profile; its passkey is not used
      await openConsole(page, signet.origin);
      await signInWithApiKey(page, org);
    });

    after(async () => {
      await browser?.close();
      await signet?.close();
    });

    test("a condition the server refuses is shown at its position; fixed, the policy is saved and listed", async () => {
      const broken = "activity.resource == 'SMART_CONTRACT_INTERFACE' && activity.action == = 'CREATE'";
      const fixed = "activity.resource == 'SMART_CONTRACT_INTERFACE' && activity.action ==  'CREATE'";
      // What the server says of this condition, asked directly: the page must show exactly that.
      const direct = await submit('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', { policyName: 'probe', effect: 'EFFECT_ALLOW', condition: broken, notes: '' });
      assert.equal(direct.status, 400, direct.text);
      const violation = direct.json.details[0].fieldViolations.find((v: { field: string }) => v.field === 'parameters.condition');
      const position = Number(/at (\d+):/.exec(violation.description)![1]);
      assert.equal(position, broken.indexOf('= =') + 3, 'the server reports the stray =');

      await open('Policies');
      await page.getByLabel('Name', { exact: true }).fill('Operators create interfaces');
      await page.getByLabel('Condition').fill(broken);
      await page.getByLabel('Consensus').fill('approvers.count() >= 1');
      await page.getByRole('button', { name: 'Create policy' }).click();

      const message = page.locator('#new-policy-condition-error .expression-message');
      await message.waitFor();
      assert.equal(await message.textContent(), `Condition: ${violation.description} (line 1, column ${position})`);
      const caret = await page.locator('#new-policy-condition-error .expression-caret').textContent();
      // Under the part of the line around the position, the caret stands under the stray '='.
      const [excerpt, marker] = caret!.split('\n') as [string, string];
      assert.match(excerpt, /^….*== = 'CREATE'$/);
      assert.equal(excerpt[marker.indexOf('^')], '=');
      assert.equal(excerpt.slice(marker.indexOf('^') - 3), "== = 'CREATE'");
      const selection = await page.locator('#new-policy-condition').evaluate((el: HTMLTextAreaElement) => ({
        focused: document.activeElement === el,
        start: el.selectionStart,
        invalid: el.getAttribute('aria-invalid'),
      }));
      assert.deepEqual(selection, { focused: true, start: position - 1, invalid: 'true' });
      await screenshot(page, 'policies-error');

      // The stray character is selected: deleting the selection is the fix (the picture took the focus away).
      await page.getByLabel('Condition').focus();
      await page.keyboard.press('Delete');
      assert.equal(await page.getByLabel('Condition').inputValue(), fixed);
      await page.getByRole('button', { name: 'Create policy' }).click();
      await page.getByRole('status').filter({ hasText: 'Policy “Operators create interfaces” created' }).waitFor();
      const row = page.getByRole('row').filter({ hasText: 'Operators create interfaces' });
      await row.waitFor();
      assert.match((await row.textContent())!, /Allow/);
      assert.ok((await row.textContent())!.includes(fixed));
      assert.equal(await page.locator('#new-policy-condition-error').count(), 0);

      const listed = await postStamped(signet.baseUrl, '/public/v1/query/list_policies', JSON.stringify({ organizationId: org.organizationId }), org);
      assert.deepEqual(
        listed.json.policies.map((p: { policyName: string; condition: string }) => [p.policyName, p.condition]),
        [['Operators create interfaces', fixed]],
      );
      await checkLayout();
      await checkShownOnPhone(page, { "the policy's effect": row.getByRole('cell', { name: 'Allow' }) });
    });

    test("a policy's page changes only the fields edited, and deletes it after asking again", async () => {
      await open('Policies');
      await page.getByRole('link', { name: 'Operators create interfaces' }).click();
      await page.getByRole('heading', { name: 'Policy Operators create interfaces' }).waitFor();
      await checkLayout();
      await page.getByLabel('Notes').fill('Reviewed');
      await page.getByRole('button', { name: 'Save policy' }).click();
      const saved = page.getByRole('status').filter({ hasText: 'Policy “Operators create interfaces” saved' });
      await saved.waitFor();
      const activityId = (await saved.getByRole('link').getAttribute('href'))!.split('/').pop()!;
      const activity = await postStamped(signet.baseUrl, '/public/v1/query/get_activity', JSON.stringify({ organizationId: org.organizationId, activityId }), org);
      assert.deepEqual(Object.keys(activity.json.activity.intent.updatePolicyIntentV2).sort(), ['policyId', 'policyNotes']);
      assert.equal(activity.json.activity.intent.updatePolicyIntentV2.policyNotes, 'Reviewed');

      await page.getByRole('button', { name: 'Delete policy' }).click();
      // The question takes the focus; Cancel keeps the policy.
      await page.waitForFunction(() => document.activeElement?.textContent === 'Yes, delete policy');
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('button', { name: 'Delete policy' }).click();
      await page.getByRole('button', { name: 'Yes, delete policy' }).click();
      await page.getByRole('heading', { name: 'Policies', level: 1 }).waitFor();
      await page.getByText('This organization has no policies yet.').waitFor();
      assert.equal(new URL(page.url()).pathname, '/console/policies');
    });

    test('an ABI file uploaded in the page is stored and its functions and events show as tables; a file that is not JSON is refused in the page', async () => {
      await open('Smart contracts', 'Smart contract interfaces');

      await page.getByLabel('ABI or IDL (a JSON file)').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not { json') });
      await page.locator('#contract-file-problem').filter({ hasText: 'notes.txt is not JSON' }).waitFor();

      await page.getByLabel('ABI or IDL (a JSON file)').setInputFiles({ name: 'token.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(ABI)) });
      await page.getByText('token.json: ').waitFor(); // read in the page
      assert.equal(await page.getByLabel('Kind').inputValue(), 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM');
      assert.equal(await page.getByLabel('Label', { exact: true }).inputValue(), 'token');
      await page.getByLabel('Contract address (0x…)').fill(TOKEN_ADDRESS);
      await page.getByLabel('Label', { exact: true }).fill('Token');
      await page.getByRole('button', { name: 'Upload' }).click();
      await page.getByRole('status').filter({ hasText: 'Interface “Token” stored' }).waitFor();

      await page.getByRole('link', { name: 'Token', exact: true }).click();
      const functions = page.getByRole('region', { name: 'Functions' });
      await functions.waitFor();
      const rows = await functions.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.children).map((cell) => (cell as HTMLElement).innerText.trim())));
      assert.deepEqual(rows, [
        ['transfer', 'address to\nuint256 amount', 'bool', 'nonpayable'],
        ['balanceOf', 'address owner', 'uint256', 'view'],
      ]);
      const events = await page.getByRole('region', { name: 'Events' }).locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.children).map((cell) => (cell as HTMLElement).innerText.trim())));
      assert.deepEqual(events, [['Transfer', 'address indexed from\naddress indexed to\nuint256 value', 'no']]);
      await screenshot(page, 'contracts');
      await checkLayout();

      // A Solana IDL: the kind and program id come from the document; its instructions show as a table.
      await page.getByRole('link', { name: 'All interfaces' }).click();
      await page.getByLabel('ABI or IDL (a JSON file)').setInputFiles({ name: 'counter.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(IDL)) });
      await page.getByText('counter.json: ').waitFor(); // read in the page
      assert.equal(await page.getByLabel('Kind').inputValue(), 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA');
      assert.equal(await page.getByLabel('Program id').inputValue(), IDL.metadata.address);
      await page.getByRole('button', { name: 'Upload' }).click();
      await page.getByRole('status').filter({ hasText: 'Interface “counter” stored' }).waitFor();
      await page.getByRole('link', { name: 'counter', exact: true }).click();
      const instructions = page.getByRole('region', { name: 'Instructions' });
      await instructions.waitFor();
      const cells = await instructions.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.children).map((cell) => (cell as HTMLElement).innerText.trim())));
      assert.deepEqual(cells, [
        ['increment', 'counter (writable)\nauth.authority (signer)', 'by: option<u32>\nmemo: vec<u8>\nmode: Mode'],
      ]);
      await checkLayout();
    });

    test('a sub-organization is found by its user’s email address, another by a phone number', async () => {
      const email = `ada-${randomUUID().slice(0, 8)}@example.com`;
      const phone = '+14155550123';
      for (const [name, contact] of [
        ['Ada’s space', { userEmail: email }],
        ['Someone else', { userEmail: `other-${randomUUID().slice(0, 8)}@example.com`, userPhoneNumber: phone }],
      ] as const) {
        const created = await submit('create_sub_organization', 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7', {
          subOrganizationName: name,
          rootUsers: [{ userName: name, ...contact, apiKeys: [], authenticators: [], oauthProviders: [] }],
          rootQuorumThreshold: 1,
        });
        assert.equal(created.status, 200, created.text);
      }
      await open('Sub-organizations');
      await page.getByLabel('Find by').selectOption('EMAIL');
      await page.getByLabel('Email address').fill(email.toUpperCase());
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByRole('status').filter({ hasText: `1 sub-organization matching ${email.toUpperCase()}` }).waitFor();
      const rows = page.getByRole('region', { name: 'Sub-organizations found' }).locator('tbody tr');
      assert.equal(await rows.count(), 1);
      assert.match((await rows.first().textContent())!, new RegExp(`Ada’s space.*${email}`));
      await checkLayout();

      await page.getByLabel('Find by').selectOption('PHONE_NUMBER');
      await page.getByLabel('Phone number (+…)').fill('+1 415 555 0123');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByRole('status').filter({ hasText: '1 sub-organization matching +1 415 555 0123' }).waitFor();
      assert.match((await rows.first().textContent())!, /Someone else/);
      assert.equal(await rows.count(), 1);

      // Every one: the count, then the colon, one space between words.
      await page.getByLabel('Find by').selectOption({ label: 'Every sub-organization' });
      await page.getByRole('button', { name: 'Search' }).click();
      await until('both listed', async () => (await rows.count()) === 2);
      assert.equal(await page.getByRole('status').filter({ hasText: 'sub-organizations' }).textContent(), '2 sub-organizations:');
      await checkShownOnPhone(page, { "the newest one's users": rows.first().getByRole('cell').filter({ hasText: 'Someone else' }) });
    });

    test('a user is created, then a tag given to it', async () => {
      await open('Users');
      const form = page.getByRole('form', { name: 'New user' });
      await form.getByLabel('Name', { exact: true }).fill('Grace');
      await form.getByLabel('Email', { exact: true }).fill('grace@example.com');
      await form.getByRole('button', { name: 'Create user' }).click();
      await page.getByRole('status').filter({ hasText: 'User “Grace” created' }).waitFor();
      await page.getByRole('region', { name: 'Users' }).getByRole('row').filter({ hasText: 'grace@example.com' }).waitFor();
      // The same address again: the server's refusal is shown under the field it names.
      await form.getByLabel('Name', { exact: true }).fill('Grace again');
      await form.getByLabel('Email', { exact: true }).fill('Grace@Example.com');
      await form.getByRole('button', { name: 'Create user' }).click();
      const taken = page.locator('#new-user-userEmail-error');
      await taken.waitFor();
      assert.match((await taken.textContent())!, /grace@example\.com/i);
      await form.getByRole('alert').filter({ hasText: 'Refused: the field marked above says why.' }).waitFor();
      await form.getByLabel('Name', { exact: true }).fill('');
      await form.getByLabel('Email', { exact: true }).fill('');

      const tagForm = page.getByRole('form', { name: 'New tag' });
      await tagForm.getByLabel('Tag name').fill('operators');
      await tagForm.getByLabel('Grace').check();
      await tagForm.getByRole('button', { name: 'Create tag' }).click();
      await page.getByRole('status').filter({ hasText: 'Tag “operators” created' }).waitFor();
      await page.getByRole('region', { name: 'Tags' }).getByRole('row').filter({ hasText: 'operators' }).waitFor();
      const grace = page.getByRole('region', { name: 'Users' }).getByRole('row').filter({ hasText: 'grace@example.com' });
      await grace.filter({ hasText: 'operators' }).waitFor();

      const users = await postStamped(signet.baseUrl, '/public/v1/query/list_users', JSON.stringify({ organizationId: org.organizationId }), org);
      const tags = await postStamped(signet.baseUrl, '/public/v1/query/list_user_tags', JSON.stringify({ organizationId: org.organizationId }), org);
      const stored = users.json.users.find((u: { userEmail?: string }) => u.userEmail === 'grace@example.com');
      assert.deepEqual(stored.userTags, [tags.json.userTags[0].tagId]);
      await checkLayout();
      await checkShownOnPhone(page, { 'the Delete tag button': page.getByRole('button', { name: 'Delete tag operators' }) });

      // Grace's page: her tag, and an API key made for her elsewhere, revoked here after asking again.
      const key = await signet.admin('POST', `/organizations/${org.organizationId}/api-keys`, { userId: stored.userId, name: 'laptop' });
      await grace.getByRole('link', { name: 'Grace' }).click();
      await page.getByRole('heading', { name: 'User Grace' }).waitFor();
      assert.equal(await page.getByLabel('operators').isChecked(), true);
      await page.getByRole('region', { name: 'API keys of Grace' }).getByRole('row').filter({ hasText: key.apiPublicKey }).waitFor();
      await checkLayout();
      await checkShownOnPhone(page, { 'the Revoke button': page.getByRole('button', { name: /^Revoke API key / }) });
      await page.getByRole('button', { name: /^Revoke API key / }).click();
      await page.getByRole('button', { name: 'Yes, revoke it' }).click();
      await page.getByRole('status').filter({ hasText: 'revoked' }).waitFor();
      await page.getByText('No API keys or session keys that may still stamp.').waitFor();
      const keys = await postStamped(signet.baseUrl, '/public/v1/query/get_api_keys', JSON.stringify({ organizationId: org.organizationId, userId: stored.userId }), org);
      assert.deepEqual(keys.json.apiKeys, []);

      // Her tags become none; then the tag is deleted.
      await page.getByLabel('operators').uncheck();
      await page.getByRole('button', { name: 'Save tags' }).click();
      await page.getByRole('status').filter({ hasText: 'Tags of Grace saved' }).waitFor();
      await page.getByRole('link', { name: 'All users' }).click();
      await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
      await grace.filter({ hasNotText: 'operators' }).waitFor();
      await page.getByRole('button', { name: 'Delete tag operators' }).click();
      await page.getByRole('button', { name: 'Yes, delete the tag' }).click();
      await page.getByRole('status').filter({ hasText: 'Tag “operators” deleted' }).waitFor();
      await page.getByText('No tags yet.', { exact: false }).first().waitFor();

      // With no tag, a user's page says where tags are made, and links there.
      await grace.getByRole('link', { name: 'Grace' }).click();
      await page.getByRole('heading', { name: 'User Grace' }).waitFor();
      const none = page.getByText('No tags yet: create one under New tag on the users page, then give it here.');
      await none.waitFor();
      await none.getByRole('link', { name: 'users page' }).click();
      await page.getByRole('form', { name: 'New tag' }).waitFor();
    });

    test("policy evaluations name each policy, a deleted one by its id; on a phone the outcome shows first", async () => {
      // Dora is no root user: her activities are decided by the policies, and what each said is kept.
      const { userId: doraId } = await signet.admin('POST', `/organizations/${org.organizationId}/users`, { userName: 'Dora' });
      const dora = await signet.admin('POST', `/organizations/${org.organizationId}/api-keys`, { userId: doraId, name: 'dora' });
      const condition = "activity.type == 'ACTIVITY_TYPE_CREATE_USER_TAG'";
      const policyIds: Record<string, string> = {};
      for (const [policyName, consensus] of [
        ['Dora makes tags', `approvers.any(user, user.id == '${doraId}')`],
        ['Anyone makes tags', ''],
      ] as const) {
        const created = await submit('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', { policyName, effect: 'EFFECT_ALLOW', condition, consensus, notes: '' });
        assert.equal(created.json.activity.status, 'ACTIVITY_STATUS_COMPLETED', created.text);
        policyIds[policyName] = created.json.activity.result.createPolicyResult.policyId;
      }
      const body = JSON.stringify({ type: 'ACTIVITY_TYPE_CREATE_USER_TAG', timestampMs: String(Date.now() + ++sequence), organizationId: org.organizationId, parameters: { userTagName: 'made by Dora', userIds: [] } });
      const tagged = await postStamped(signet.baseUrl, '/public/v1/submit/create_user_tag', body, dora);
      assert.equal(tagged.json.activity.status, 'ACTIVITY_STATUS_COMPLETED', tagged.text);
      const deleted = await submit('delete_policy', 'ACTIVITY_TYPE_DELETE_POLICY', { policyId: policyIds['Anyone makes tags'] });
      assert.equal(deleted.json.activity.status, 'ACTIVITY_STATUS_COMPLETED', deleted.text);

      await openConsole(page, signet.origin, `/console/activities/${tagged.json.activity.id}`);
      const evaluations = page.getByRole('region', { name: 'What the policies said at each vote' });
      const named = evaluations.getByRole('link', { name: 'Dora makes tags' });
      await named.waitFor();
      assert.equal(await named.getAttribute('href'), `/console/policies/${policyIds['Dora makes tags']}`);
      const rows = await evaluations.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.children).map((cell) => (cell as HTMLElement).innerText.trim())));
      assert.deepEqual(rows, [
        ['Dora (approved)', 'Dora makes tags', 'OUTCOME_ALLOW'],
        ['Dora (approved)', `${policyIds['Anyone makes tags']} (deleted policy)`, 'OUTCOME_ALLOW'],
      ]);
      await checkLayout();
      await checkShownOnPhone(page, {
        "the policy's outcome": evaluations.locator('tbody tr').first().getByText('OUTCOME_ALLOW'),
        "the vote's verification": page.getByRole('region', { name: 'Votes, each signature checked in this page' }).getByText('✓ verified'),
      });

      const gone = await submit('delete_policy', 'ACTIVITY_TYPE_DELETE_POLICY', { policyId: policyIds['Dora makes tags'] });
      assert.equal(gone.json.activity.status, 'ACTIVITY_STATUS_COMPLETED', gone.text);
    });

    test('an authenticator that makes only RS256 (RSA) keys, as Windows Hello does: registered in the console, signs in, its vote checked in the page', async () => {
      // The page's virtual authenticator, as one that supports RS256 alone: it refuses a registration
      // that does not offer RS256 (the browser's NotSupportedError), and makes an RSA key otherwise.
      await page.evaluate(() => {
        const create = navigator.credentials.create.bind(navigator.credentials);
        const offered: number[][] = [];
        Object.assign(window, { offeredAlgorithms: offered });
        navigator.credentials.create = (options?: CredentialCreationOptions) => {
          const publicKey = options!.publicKey!;
          offered.push(publicKey.pubKeyCredParams.map((p) => p.alg));
          if (!publicKey.pubKeyCredParams.some((p) => p.alg === -257)) {
            return Promise.reject(new DOMException('The authenticator supports none of the algorithms offered (RS256 only).', 'NotSupportedError'));
          }
          return create({ ...options, publicKey: { ...publicKey, pubKeyCredParams: [{ type: 'public-key', alg: -257 }] } });
        };
      });
      await page.getByRole('link', { name: 'Add a passkey' }).click();
      await page.getByLabel('Name of the passkey').fill('Windows Hello');
      await page.getByRole('button', { name: 'Create and register a passkey' }).click();
      await page.getByRole('status').filter({ hasText: 'Completed' }).waitFor();
      assert.deepEqual(await page.evaluate(() => (window as unknown as { offeredAlgorithms: number[][] }).offeredAlgorithms), [[-7, -257]], 'ES256 first, then RS256');
      const { authenticators } = (await signet.client(org).getAuthenticators({ organizationId: org.organizationId, userId: org.userId })) as any;
      assert.deepEqual(authenticators.map((a: { authenticatorName: string }) => a.authenticatorName), ['Windows Hello']);
      // The COSE key registered: a map of 4, kty (1) RSA (3), alg (3) RS256 (-257: 0x39 0x0100).
      assert.match(authenticators[0].credential.publicKey, /^a401030339010020590100/);

      // Signing in with it: one RS256 assertion, which Signet verifies, starts the session (stamp_login).
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('Organization ID').fill(org.organizationId);
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      assert.match(await page.locator('.user').innerText(), /\(passkey\)/);
      const logins = await postStamped(signet.baseUrl, '/public/v1/query/list_activities', JSON.stringify({ organizationId: org.organizationId, filterByType: ['ACTIVITY_TYPE_STAMP_LOGIN'] }), org);
      assert.equal(logins.json.activities.length, 1, logins.text);
      assert.equal(logins.json.activities[0].status, 'ACTIVITY_STATUS_COMPLETED');
      // Its vote, an RS256 assertion, is checked again in the page.
      await page.getByRole('navigation').getByRole('link', { name: 'Activities', exact: true }).click();
      await page.getByRole('region', { name: 'Activities, newest first' }).getByRole('link', { name: 'Stamp login' }).click();
      const votes = page.getByRole('region', { name: 'Votes, each signature checked in this page' });
      await votes.getByText('✓ verified').waitFor();
      assert.match(await votes.innerText(), /Approved\s+passkey\s+✓ verified/);
      assert.deepEqual(pageErrors, []);

      await page.getByRole('button', { name: 'Sign out' }).click();
      await signInWithApiKey(page, org);
    });

    test('the root quorum shows its member and warns before a change', async () => {
      await open('Root quorum');
      await page.getByRole('note').filter({ hasText: 'only it may change itself' }).waitFor();
      const members = page.getByRole('region', { name: 'Members of the root quorum' }).locator('tbody tr');
      assert.equal(await members.count(), 1);
      assert.ok((await members.first().textContent())!.includes(org.userId));
      await page.getByText('When this user approves an activity of Console views, it is allowed without consulting any policy.').waitFor();
      await checkLayout();
    });

    test('with a threshold of 2, a policy created in the page waits for approvals and links to its activity', async () => {
      const { userId } = await signet.admin('POST', `/organizations/${org.organizationId}/users`, { userName: 'Bea' });
      await open('Policies');
      await open('Root quorum');
      await page.getByLabel('Bea', { exact: true }).check();
      await page.getByLabel('Approvals needed (threshold)').fill('2');
      await page.getByRole('button', { name: 'Change the root quorum' }).click();
      await page.getByRole('status').filter({ hasText: 'Root quorum changed' }).waitFor();
      const quorum = await postStamped(signet.baseUrl, '/public/v1/query/get_organization_configs', JSON.stringify({ organizationId: org.organizationId }), org);
      assert.deepEqual(quorum.json.configs.quorum, { threshold: 2, userIds: [org.userId, userId] });

      await open('Policies');
      await page.getByLabel('Name', { exact: true }).fill('Needs two');
      await page.getByRole('button', { name: 'Create policy' }).click();
      const note = page.getByRole('status').filter({ hasText: 'Needs approvals: nothing has changed yet.' });
      await note.waitFor();
      const href = (await note.getByRole('link').getAttribute('href'))!;
      assert.match(href, /^\/console\/activities\/[0-9a-f-]{36}$/);
      const waiting = await postStamped(signet.baseUrl, '/public/v1/query/get_activity', JSON.stringify({ organizationId: org.organizationId, activityId: href.split('/').pop() }), org);
      assert.equal(waiting.json.activity.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      assert.equal(waiting.json.activity.intent.createPolicyIntentV3.policyName, 'Needs two');
      await page.getByText('This organization has no policies yet.').waitFor();
      await note.getByRole('link').click();
      await page.waitForURL((url) => url.pathname === href);
      assert.deepEqual(pageErrors, []);
    });
  });
}
