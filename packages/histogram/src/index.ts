export const placeholder = 'histogram';
