import { webhookClient } from './registration.js';

const flags = {
  registerByUrl: false,
  webhookAddress: '',
  webhookPort: '',
  webhookService: 'vpa-webhook',
};

describe('webhookClient', () => {
  it('names the Service in the webhook’s namespace by default', () => {
    expect(webhookClient(flags, 'tandem-system', 8000)).toEqual({
      service: { namespace: 'tandem-system', name: 'vpa-webhook' },
    });
  });

  it('builds upstream’s URL from --webhook-address and --webhook-port', () => {
    expect(
      webhookClient(
        {
          ...flags,
          registerByUrl: true,
          webhookAddress: 'webhook.example',
          webhookPort: '8443',
        },
        'ns',
        8000,
      ),
    ).toEqual({ url: 'https://webhook.example:8443' });
  });

  it('uses the bound port when --webhook-port is empty', () => {
    expect(
      webhookClient(
        { ...flags, registerByUrl: true, webhookAddress: 'https://127.0.0.1' },
        'ns',
        40123,
      ),
    ).toEqual({ url: 'https://127.0.0.1:40123' });
  });
});
