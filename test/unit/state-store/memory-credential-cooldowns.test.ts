import { createMemoryCredentialCooldowns } from '../../../infra/state-store/memory/memory-credential-cooldowns.ts';
import { describeCredentialCooldownContract } from './credential-cooldowns-contract.ts';

describeCredentialCooldownContract('memory', {
  // a memory store holds its own cooldowns only: every store is its own namespace
  sharedByNamespace: false,
  make: async () => createMemoryCredentialCooldowns(),
});
