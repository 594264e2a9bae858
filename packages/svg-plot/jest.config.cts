module.exports = {
  displayName: 'svg-plot',
  preset: '../../jest.preset.js',
};
