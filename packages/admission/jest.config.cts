module.exports = {
  displayName: 'admission',
  preset: '../../jest.preset.js',
};
