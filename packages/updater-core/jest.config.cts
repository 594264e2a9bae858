module.exports = {
  displayName: 'updater-core',
  preset: '../../jest.preset.js',
};
