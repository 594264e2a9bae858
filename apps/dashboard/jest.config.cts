module.exports = {
  displayName: 'dashboard',
  preset: '../../jest.preset.js',
};
