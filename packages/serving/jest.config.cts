module.exports = {
  displayName: 'serving',
  preset: '../../jest.preset.js',
};
