module.exports = {
  displayName: 'custom-metrics',
  preset: '../../jest.preset.js',
};
