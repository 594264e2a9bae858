module.exports = {
  displayName: 'cli',
  preset: '../../jest.preset.js',
};
