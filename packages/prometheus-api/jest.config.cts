module.exports = {
  displayName: 'prometheus-api',
  preset: '../../jest.preset.js',
};
