module.exports = {
  displayName: 'dashboard-core',
  preset: '../../jest.preset.js',
};
