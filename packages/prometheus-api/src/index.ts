export {
  apiResponseData,
  matrixSeries,
  PrometheusResponseError,
  vectorSamples,
  type PrometheusSample,
  type PrometheusSeries,
} from './prometheus-response.js';
