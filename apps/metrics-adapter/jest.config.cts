module.exports = {
  displayName: 'metrics-adapter',
  preset: '../../jest.preset.js',
};
