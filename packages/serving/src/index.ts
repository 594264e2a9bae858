export {
  startHttpsServer,
  type HttpsServer,
  type HttpsServerOptions,
} from './https-server.js';
export { opsRouter, type OpsRouterOptions } from './ops-router.js';
export { requestSpans } from './request-spans.js';
export {
  jsonEndpoint,
  type JsonEndpointOptions,
  type JsonReply,
  type RequestProblem,
  type RequestTimes,
} from './json-endpoint.js';
export {
  certificateExpiry,
  createCertificateAuthority,
  issueServingCertificate,
  type CertificateAuthorityOptions,
  type CertificatePair,
  type ServingCertificateOptions,
} from './certificates.js';
export {
  writeCertificateFiles,
  type CertificateFiles,
} from './certificate-files.js';
export {
  watchFiles,
  type ChangeTrigger,
  type FileWatch,
  type WatchFilesOptions,
} from './watch-files.js';
export { certsCommand } from './certs-command.js';
export { followFileContent } from './follow-file-content.js';
export {
  startFlaggedApp,
  startServingApp,
  type CommonFlags,
} from './serving-app-start.js';
export {
  certificateFlagOptions,
  certificateFlagTable,
  parseCertificateFlags,
  type CertificateManagement,
} from './certificate-flags.js';
export {
  certificateRotation,
  startCertificateRotation,
  type CertificateRotation,
  type CertificateRotationOptions,
  type RunningRotation,
  type ServedFiles,
  type ServingIdentity,
} from './certificate-rotation.js';
export {
  kubeSecretStore,
  memorySecretStore,
  type SecretReference,
  type SecretStore,
  type StoredSecret,
} from './certificate-store.js';
export { servingFiles } from './managed-certificates.js';
