export const placeholder = 'vpa-api';
