module.exports = {
  displayName: 'strategies',
  preset: '../../jest.preset.js',
};
