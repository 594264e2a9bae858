module.exports = {
  displayName: 'histogram',
  preset: '../../jest.preset.js',
};
