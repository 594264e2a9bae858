module.exports = {
  displayName: 'updater',
  preset: '../../jest.preset.js',
};
