export const placeholder = 'estimators';
