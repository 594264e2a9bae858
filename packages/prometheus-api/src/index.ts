export {
  apiResponseData,
  matrixSeries,
  PrometheusResponseError,
  vectorSamples,
  type PrometheusSample,
  type PrometheusSeries,
} from './prometheus-response.js';
export {
  prometheusClient,
  type PrometheusClient,
  type PrometheusClientOptions,
  type PrometheusRequestSeen,
  type QueryRange,
} from './prometheus-client.js';
export {
  authorizationHeader,
  type PrometheusCredentials,
} from './prometheus-auth.js';
