/**
 * What a cloud channel (Azure OpenAI, Amazon Bedrock, Google Vertex AI) must say besides its
 * provider: checked when the configuration is read, so a channel missing its region, project or
 * credential is refused with every problem named instead of failing on its first request.
 * Messages never quote the credential.
 */
import type { CloudAuthMethod, CloudSettings } from '../providers/provider-preset.ts';

/** One problem with a channel's cloud settings: the field's path in the channel and what is wrong. */
export interface CloudSettingsProblem {
  readonly path: ReadonlyArray<string>;
  readonly message: string;
}

/** The fields of a channel the rules read. */
export interface CloudChannelFields {
  readonly provider: string;
  readonly apiKey: string;
  readonly cloud?: CloudSettings | undefined;
}

/** The auth methods each cloud accepts; the first is its default. */
export const CLOUD_AUTH_BY_PROVIDER: Readonly<Record<'azure' | 'bedrock' | 'vertex', ReadonlyArray<CloudAuthMethod>>> =
  {
    azure: ['api-key', 'entra-id'],
    bedrock: ['sigv4', 'api-key'],
    vertex: ['service-account', 'default-credentials'],
  };

/** The settings each cloud reads (others are refused by name, so a typo'd setting is not silently ignored). */
export const CLOUD_SETTINGS_BY_PROVIDER: Readonly<
  Record<keyof typeof CLOUD_AUTH_BY_PROVIDER, ReadonlyArray<keyof CloudSettings>>
> = {
  azure: ['auth', 'apiVersion', 'tenantId', 'clientId'],
  bedrock: ['auth', 'region', 'roleArn', 'externalId'],
  vertex: ['auth', 'region', 'project'],
};

/** `ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]` (https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html). */
const AWS_KEY_PAIR = /^[A-Z0-9]{16,128}:[^:\s]+(:[^:\s]+)?$/;

/** The auth method a cloud channel uses: its `cloud.auth`, or the cloud's default. */
export function cloudAuthOf(
  provider: keyof typeof CLOUD_AUTH_BY_PROVIDER,
  cloud: CloudSettings | undefined,
): CloudAuthMethod {
  return cloud?.auth ?? CLOUD_AUTH_BY_PROVIDER[provider][0]!;
}

/**
 * Every problem with `channel`'s cloud settings: `cloud` on a provider that is not a cloud, a
 * setting the cloud does not read, an auth method it does not offer, a missing region, project,
 * tenant or client id, and a credential (`apiKey`) absent or of the wrong form for the auth
 * method. Empty: the settings are complete.
 */
export function cloudSettingsProblems(channel: CloudChannelFields): CloudSettingsProblem[] {
  const { provider, cloud } = channel;
  if (provider !== 'azure' && provider !== 'bedrock' && provider !== 'vertex')
    return cloud === undefined
      ? []
      : [{ path: ['cloud'], message: 'applies only to azure, bedrock and vertex channels' }];
  const problems: CloudSettingsProblem[] = [];
  const need = (field: keyof CloudSettings, why: string): void => {
    if (cloud?.[field] === undefined) problems.push({ path: ['cloud', field], message: `is required ${why}` });
  };
  for (const field of Object.keys(cloud ?? {}) as Array<keyof CloudSettings>)
    if (!CLOUD_SETTINGS_BY_PROVIDER[provider].includes(field))
      problems.push({ path: ['cloud', field], message: `is not a setting of ${provider} channels` });
  const auth = cloudAuthOf(provider, cloud);
  if (!CLOUD_AUTH_BY_PROVIDER[provider].includes(auth)) {
    problems.push({
      path: ['cloud', 'auth'],
      message: `must be one of ${CLOUD_AUTH_BY_PROVIDER[provider].join(', ')} for ${provider} channels`,
    });
    return problems;
  }
  const key = channel.apiKey;
  switch (auth) {
    case 'api-key':
      if (key === '') problems.push({ path: ['apiKey'], message: `is required with cloud.auth api-key` });
      break;
    case 'entra-id':
      need('tenantId', 'with cloud.auth entra-id');
      need('clientId', 'with cloud.auth entra-id');
      if (key === '')
        problems.push({ path: ['apiKey'], message: 'is required with cloud.auth entra-id (the client secret)' });
      break;
    case 'sigv4':
      if (key !== '' && !AWS_KEY_PAIR.test(key))
        problems.push({
          path: ['apiKey'],
          message:
            'must be ACCESS_KEY_ID:SECRET_ACCESS_KEY or ACCESS_KEY_ID:SECRET_ACCESS_KEY:SESSION_TOKEN with cloud.auth sigv4 (empty: the AWS default credential chain)',
        });
      break;
    case 'service-account':
      if (!isServiceAccountKey(key))
        problems.push({
          path: ['apiKey'],
          message:
            'must be a service-account key file (JSON with type "service_account", client_email and private_key) with cloud.auth service-account',
        });
      break;
    case 'default-credentials':
      if (key !== '') problems.push({ path: ['apiKey'], message: 'must be empty with cloud.auth default-credentials' });
      break;
  }
  if (auth !== 'sigv4' && cloud?.roleArn !== undefined)
    problems.push({ path: ['cloud', 'roleArn'], message: 'applies only with cloud.auth sigv4' });
  if (cloud?.externalId !== undefined && cloud.roleArn === undefined)
    problems.push({ path: ['cloud', 'externalId'], message: 'applies only with cloud.roleArn' });
  if (provider === 'bedrock') need('region', 'for bedrock channels (the AWS region, e.g. us-east-1)');
  if (provider === 'vertex') {
    need('project', 'for vertex channels (the Google Cloud project id)');
    need('region', 'for vertex channels (the location, e.g. us-central1 or global)');
  }
  return problems;
}

/** True when `text` is a Google service-account key file's JSON (https://cloud.google.com/iam/docs/keys-create-delete). */
function isServiceAccountKey(text: string): boolean {
  if (!text.trimStart().startsWith('{')) return false;
  try {
    const key = JSON.parse(text) as Record<string, unknown>;
    return (
      key.type === 'service_account' &&
      typeof key.client_email === 'string' &&
      typeof key.private_key === 'string' &&
      key.private_key.includes('PRIVATE KEY')
    );
  } catch {
    return false;
  }
}
