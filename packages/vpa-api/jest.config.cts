module.exports = {
  displayName: 'vpa-api',
  preset: '../../jest.preset.js',
};
