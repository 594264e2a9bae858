module.exports = {
  displayName: 'admission-webhook',
  preset: '../../jest.preset.js',
};
